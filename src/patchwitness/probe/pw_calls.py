"""Calls into named functions, captured while the tests run (the grader's comparison with a
reference fix). Loaded by pw_probe when the grader names the functions (PW_CALLS, a JSON file:
the tree's root, the targets by file and qualified name, the file to write).

Each call into a target is written as one JSON line: the target, the test that made it, the
module the function lives in, and its arguments pickled at the moment of the call (the object
a method was called on among them). A call whose arguments do not pickle, or do not unpickle
again, is counted, not kept. At most PER_TARGET distinct calls per target. Standard library
only: the graded interpreter may be any Python 3.8+.
"""

import base64
import hashlib
import json
import os
import pickle
import sys
import threading

PER_TARGET = 40
CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08

_targets = {}  # (file relative to the root, qualified name) -> the target's name
_codes = {}  # code object -> the target it is, or ""
_kept = {}  # target -> digests of the calls kept
_dropped = {}  # target -> calls whose arguments did not pickle
_builders = set()  # (file, "Class.__init__") of the classes whose methods are targets
_builds = {}  # code object -> whether it is one of those constructors
_made = {}  # id of an object of such a class -> its constructor's arguments, pickled
_tests = set()  # the test files, when calls from them into the tree are kept (entries)
_is_test = {}  # code object -> whether it is a test file's
_root = ""
_out = None
_busy = threading.local()
current_test = ""


def start(spec_path):
    global _root, _out
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    _root = os.path.realpath(spec["root"])
    for t in spec["targets"]:
        _targets[(t["file"], t["qualname"])] = t["file"] + "::" + t["qualname"]
        owner, _, name = t["qualname"].rpartition(".")
        if owner and name not in ("__init__", "__new__"):
            # How the method's object was made: each tree makes its own from the same call.
            _builders.add((t["file"], owner + ".__init__"))
    # No function named: the calls the tests make into the tree's other files are kept (the
    # change is in code the grader cannot name a function of, a compiled extension's).
    _tests.update(spec.get("entries", []))
    _out = open(spec["out"], "a", encoding="utf-8")  # noqa: SIM115 - open until finish()
    threading.setprofile(_profile)
    sys.setprofile(_profile)


def finish():
    if _out is None:
        return
    sys.setprofile(None)
    threading.setprofile(None)
    _write({"event": "dropped", "counts": dict(_dropped)})
    _out.close()


def _profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    target = _codes.get(code)
    if target is None:
        target = _codes[code] = _match(code)
    if target == "" and _tests:
        target = _entry(frame)
    builds = _builds.get(code)
    if builds is None:
        builds = _builds[code] = _builder(code)
    if (builds or (target and target != "-")) and not getattr(_busy, "on", False):
        _busy.on = True
        try:
            if builds:
                _note_made(frame)
            if target and target != "-":
                _record(target, frame)
        except Exception:  # a probe never breaks the run it watches
            _dropped[target] = _dropped.get(target, 0) + 1
        finally:
            _busy.on = False


def _builder(code):
    rel = _relative(code)
    return rel is not None and (rel, getattr(code, "co_qualname", code.co_name)) in _builders


def _note_made(frame):
    """The arguments an object of a target's class was made with, by the object's id (the
    first constructor to run for it: a subclass's, when it calls its base's)."""
    call = _arguments(frame)
    made = call["pos"][0] if call["pos"] else None
    if made is None or id(made) in _made:
        return
    call["pos"] = call["pos"][1:]
    try:
        data = pickle.dumps(call, protocol=4)
        pickle.loads(data)
    except Exception:
        return
    _made[id(made)] = base64.b64encode(data).decode("ascii")


def _match(code):
    """The target a code object is; "" for none; "-" for none and not in the tree at all."""
    rel = _relative(code)
    if rel is None:
        return "-"
    name = getattr(code, "co_qualname", code.co_name)
    found = _targets.get((rel, name), "")
    if not found and (rel in _tests or "<" in name or rel.rsplit("/", 1)[-1] == "conftest.py"):
        return "-"  # no entry either: a test's own function, a lambda, a comprehension
    return found


def _relative(code):
    path = os.path.realpath(code.co_filename)
    if not path.startswith(_root + os.sep):
        return None
    return os.path.relpath(path, _root).replace(os.sep, "/")


def _entry(frame):
    """The callee as an entry: called straight from a test file's code."""
    caller = frame.f_back
    if caller is None:
        return ""
    known = _is_test.get(caller.f_code)
    if known is None:
        known = _is_test[caller.f_code] = _relative(caller.f_code) in _tests
    if not known:
        return ""
    code = frame.f_code
    return _relative(code) + "::" + getattr(code, "co_qualname", code.co_name)


def _record(target, frame):
    kept = _kept.setdefault(target, set())
    if len(kept) >= PER_TARGET:
        return
    code = frame.f_code
    call = _arguments(frame)
    init = code.co_name in ("__init__", "__new__")
    if init:
        call["pos"] = call["pos"][1:]  # the object (or class) being made: the call makes it
    made = _made.get(id(call["pos"][0])) if call["pos"] and not init else None
    try:
        data = pickle.dumps(call, protocol=4)
        pickle.loads(data)
    except Exception:
        _dropped[target] = _dropped.get(target, 0) + 1
        return
    digest = hashlib.sha256(data + (made or "").encode()).hexdigest()
    if digest in kept:
        return
    kept.add(digest)
    record = {
        "event": "call",
        "target": target,
        "module": frame.f_globals.get("__name__", ""),
        "qualname": getattr(code, "co_qualname", code.co_name),
        "init": init,
        "test": current_test,
        "call": base64.b64encode(data).decode("ascii"),
    }
    if made is not None:
        record["made"] = made  # the object's constructor call, for each tree to make its own
    _write(record)


def _arguments(frame):
    """The call's arguments as the function received them: positional (the object first, for
    a method), *args, keyword-only and **kwargs."""
    code = frame.f_code
    names = code.co_varnames
    values = frame.f_locals
    count, kwonly = code.co_argcount, code.co_kwonlyargcount
    call = {
        "pos": [values[n] for n in names[:count]],
        "star": [],
        "kw": {n: values[n] for n in names[count : count + kwonly]},
    }
    at = count + kwonly
    if code.co_flags & CO_VARARGS:
        call["star"] = list(values[names[at]])
        at += 1
    if code.co_flags & CO_VARKEYWORDS:
        call["kw"].update(values[names[at]])
    return call


def _write(record):
    _out.write(json.dumps(record) + "\n")
    _out.flush()
