#!/usr/bin/env bash
# Installs the system packages patchwitness uses, where this machine allows it, and says clearly
# what is missing otherwise. Never fails the build by itself: the tool and the tests report what a
# missing package costs (a C++ task cannot build without a compiler; bwrap falls back loudly).
set -u
want=(bubblewrap:bwrap libgtest-dev:/usr/include/gtest/gtest.h catch2:/usr/include/catch2/catch.hpp
      ripgrep:rg cmake:cmake ninja-build:ninja g++:g++ git:git chromium:chromium)
missing=()
for pair in "${want[@]}"; do
  pkg=${pair%%:*}; probe=${pair#*:}
  if [[ $probe == /* ]]; then [[ -e $probe ]] || missing+=("$pkg")
  else command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg"); fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing ${missing[*]}"
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >/tmp/patchwitness-apt.log 2>&1; then
    exit 0
  fi
  echo "system-deps: apt-get failed (log: /tmp/patchwitness-apt.log)" >&2
fi
echo "system-deps: MISSING ${missing[*]} -- install them with your package manager" >&2
echo "system-deps: (tests that need them are skipped with the reason; C++ tasks will not grade)" >&2
exit 0
