"""The grader's models are built when first used (model.DEFERRED), and a grade builds the rest
beside its test run (model.build_models). Each check runs a fresh interpreter: a model built by
an earlier test of this process would hide what an import does."""

from __future__ import annotations

import json
import subprocess
import sys

# Every module of the grader (not the probes, which run inside graded processes), and a census
# of its models as built or not.
IMPORT_ALL = (
    "import importlib, pkgutil\n"
    "import patchwitness\n"
    "for found in pkgutil.walk_packages(patchwitness.__path__, 'patchwitness.'):\n"
    "    if not found.name.startswith('patchwitness.probe'):\n"
    "        importlib.import_module(found.name)\n"
    "from pydantic import BaseModel\n"
    "def grader_models():\n"
    "    seen, todo = [], [BaseModel]\n"
    "    while todo:\n"
    "        for sub in todo.pop().__subclasses__():\n"
    "            if sub.__module__.startswith('patchwitness.'):\n"
    "                seen.append(sub)\n"
    "                todo.append(sub)\n"
    "    return seen\n"
    "def unbuilt():\n"
    "    return sorted(m.__name__ for m in grader_models() if not m.__pydantic_complete__)\n"
)


def run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL + code], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_models_builds_none_of_them():
    seen = run(
        "import json\nprint(json.dumps({'models': len(grader_models()), 'unbuilt': unbuilt()}))"
    )
    assert seen["models"] > 40
    assert len(seen["unbuilt"]) == seen["models"]
    assert {"Verdict", "GradeFacts", "Task", "TaskToml", "ManifestSpec"} <= set(seen["unbuilt"])


def test_build_models_builds_every_model_once():
    seen = run(
        "import json\nfrom patchwitness.model import build_models\n"
        "first = build_models()\nsecond = build_models()\n"
        "print(json.dumps({'models': len(grader_models()), 'first': first, 'second': second,"
        " 'unbuilt': unbuilt()}))"
    )
    assert seen["first"] == seen["models"] > 40
    assert seen["second"] == 0
    assert seen["unbuilt"] == []


def test_the_thread_beside_the_run_builds_every_model():
    """What collect submits beside the patched run: after it, the grade reads built models."""
    seen = run(
        "import json\nfrom patchwitness.collect import load_judge\n"
        "load_judge()\nprint(json.dumps({'unbuilt': unbuilt()}))"
    )
    assert seen["unbuilt"] == []


def test_a_first_use_from_many_threads_at_once_validates_with_the_right_model():
    """Pydantic before 2.14 could hand a thread the parent's validator, or none, while another
    thread built the model (pydantic#13419): `Reason` validated as `Frozen`, which forbids every
    field. Sixteen threads make their first models at the same moment, taking turns every
    microsecond; each must get its own. A race shows in one interpreter of three on pydantic
    2.13, so the test makes four."""
    for _ in range(4):
        assert_first_uses_are_right()


def assert_first_uses_are_right() -> None:
    seen = run(
        "import json, sys, threading\n"
        "from pydantic import ValidationError\n"
        "from patchwitness import model\n"
        "sys.setswitchinterval(1e-6)  # threads take turns inside a build, not after it\n"
        "gate = dict(status='pass', row='R1', effect='accept')\n"
        "firsts = [\n"
        "    (model.Reason, dict(gate='census', row='C1', detail='d')),\n"
        "    (model.Finding, dict(gate='drift', kind='k', message='m', line=3)),\n"
        "    (model.WeakenedTest, dict(scope='s', file='f', removed=['a'], added=[])),\n"
        "    (model.SkippedGate, dict(gate='matrix', why='w')),\n"
        "    (model.Timings, dict(total_s=1.0, phases={'tests': 0.5})),\n"
        "    (model.CensusGate, gate), (model.DriftGate, gate), (model.CoverageGate, gate),\n"
        "    (model.MatrixGate, gate), (model.SpecialGate, gate),\n"
        "]\n"
        "start = threading.Barrier(16)\n"
        "made, errors = [], []\n"
        "def first_use():\n"
        "    start.wait()\n"
        "    for cls, fields in firsts:\n"
        "        try:\n"
        "            made.append(type(cls(**fields)).__name__)\n"
        "        except Exception as exc:\n"
        "            errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=first_use) for _ in range(16)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "try:\n"
        "    model.Reason(gate='g', row='r', detail='d', extra_field=1)\n"
        "    forbids = False\n"
        "except ValidationError:\n"
        "    forbids = True\n"
        "print(json.dumps({'made': sorted(set(made)), 'count': len(made), 'errors': errors,"
        " 'forbids': forbids, 'kinds': sorted(c.__name__ for c, _ in firsts)}))"
    )
    assert seen["errors"] == []
    assert seen["count"] == 16 * len(seen["kinds"])
    assert seen["made"] == seen["kinds"]
    assert seen["forbids"]  # a deferred model still refuses a field it does not have
