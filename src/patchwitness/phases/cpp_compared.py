"""The runs of a user's program over the patched tree and over the reference's, compared: what
each case printed and how it ended, into the reference gate's facts. Shared by the program of
GoogleTest bodies (phases/cpp_reference.py) and the plain test program
(phases/cpp_plain_reference.py)."""

from __future__ import annotations

from patchwitness import cpp_user_program as user
from patchwitness import reference as differ
from patchwitness.model import Difference, ReferenceFacts

SHOWN = 5


def fill(
    found: ReferenceFacts,
    cases: list[tuple[str, str, str, str]],
    runs: dict[str, list[dict[int, tuple[str, str]]]],
    what: str,
) -> None:
    """Add to `found` the comparison of the programs' `runs` (side -> its runs, each case
    number -> how it ended and what it printed; the reference's two). `cases`: each number's
    target, what it is (shown with `what` and its number), what it varied, and its test."""
    calls = []
    reference: dict[str, dict] = {}
    patched: dict[str, dict] = {}
    first, second = runs["reference"]
    for index, (target, shown, varied, test) in enumerate(cases):
        key = str(index)
        calls.append(
            {
                "id": key,
                "target": target,
                "shown": f"{shown} ({what} {index})",
                "varied": varied,
                "test": test,
            }
        )
        if index in first:
            ending, out = first[index]
            steady = second.get(index) == first[index]
            reference[key] = {"outcome": ending, "stdout": out, "steady": steady}
        if index in runs["patched"][0]:
            ending, out = runs["patched"][0][index]
            patched[key] = {"outcome": ending, "stdout": out}
    compared = differ.compare(calls, reference, patched)
    found.compared += compared.compared
    found.nondeterministic += compared.nondeterministic
    found.unrunnable += compared.unrunnable
    found.differing += len(compared.differing)
    outputs = {
        key: (reference[key]["stdout"], patched.get(key, {}).get("stdout", "")) for key in reference
    }
    found.differences += [difference(w, outputs, what) for w in compared.differing[:SHOWN]]
    if not found.compared:
        found.skipped = (
            f"no {what} of the user's program was compared: {compared.nondeterministic} "
            f"answered otherwise twice under the reference, {compared.unrunnable} did not run "
            "there"
        )


def difference(
    witness: differ.Witness, outputs: dict[str, tuple[str, str]], what: str
) -> Difference:
    """The witness, its outputs cut to the first observation on which they differ."""
    ref, pat = dict(witness.reference), dict(witness.patch)
    key = witness.call.rsplit(f"({what} ", 1)[-1].rstrip(")")
    if "stdout" in witness.fields and key in outputs:
        ref["stdout"], pat["stdout"] = user.first_difference(*outputs[key])
    return Difference(
        target=witness.target,
        call=witness.call,
        varied=witness.varied,
        test=witness.test,
        fields=list(witness.fields),
        reference=ref,
        patch=pat,
    )
