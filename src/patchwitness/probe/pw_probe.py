"""pytest plugin that patchwitness loads into the test run under grade (`-p pw_probe`).

It reports collection and every test report as JSON lines on a pipe the grader reads while the run
goes on (fd in PW_PROBE_FD), so there is no report file for the code under test to rewrite
afterwards. It runs inside the graded interpreter, which may be any Python 3.8+: standard library
and pytest only.
"""

import inspect
import json
import os
import sys

import pytest

# pytest put its assertion rewriter at the head of the import system before it loaded this plugin:
# the line probes go first again, so the measured files are probed whoever would import them.
if "pw_lines" in sys.modules:
    sys.modules["pw_lines"].to_front()

# Hooks with which a conftest or plugin can change what the report says or which tests run.
WATCHED_HOOKS = (
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_report_teststatus",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_pyfunc_call",
    "pytest_collection_modifyitems",
    "pytest_deselected",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_collection",
)

_fd = None
# The report file, when the run has no pipe (Request.report_file): taken out of the environment
# before any code of the tree can read it.
_file = os.environ.pop("PW_PROBE_FILE", None)
# The tests this run is asked to run, when it is asked for some (a file of their keys, one per
# line: the grader's mutant runs); taken out of the environment as the report file is.
_select = os.environ.pop("PW_SELECT", None)
# The tests to run before all others (a file of keys, in order: the failing tests, run first
# elsewhere so that none of them rides on what an earlier test left in the process).
_first = os.environ.pop("PW_FIRST", None)
# Set with PW_SELECT: collect only the files that hold the selected tests (with every conftest
# and package), so that a run asking a question of a few tests does not import the whole suite.
_narrow = os.environ.pop("PW_NARROW", None) == "1"
_narrowing = None  # the plugin that does it, once registered: the grader's, no part of the run
# The functions whose calls this run captures (a JSON file: the grader's comparison with a
# reference fix, pw_calls); taken out of the environment as the others are.
_calls = os.environ.pop("PW_CALLS", None)
_root = ""
_HERE = os.path.dirname(os.path.abspath(__file__))

# The files this process opened since it started (pw_opened, which the grader's sitecustomize
# starts first thing); from now on if that did not run.
try:
    import pw_opened
except ImportError:  # the probe directory is not importable as a path entry: no record
    pw_opened = None
else:
    pw_opened.start()

pw_calls = None
if _calls:
    import pw_calls

    pw_calls.start(_calls)

# What the test runner had loaded before any code of the project's: the harness's modules.
_harness_modules = sorted({name.split(".", 1)[0] for name in list(sys.modules)})
# The environment a test sees (its names), read in the first test's setup.
_environ = []
# The modules collection imported from the tests: conftests, test packages and test modules.
_test_modules = set()
# The runner's hook vocabulary: every hook's name and its arguments' names.
_hook_words = set()


def _emit(event):
    if _fd is None and _file is None:
        return
    data = (json.dumps(event, separators=(",", ":"), default=str) + "\n").encode("utf-8")
    if _fd is None:
        # Opened per event: no descriptor of the grader's stays open in the process.
        with open(_file, "ab") as report:
            report.write(data)
        return
    view = memoryview(data)
    while view:
        written = os.write(_fd, view)
        view = view[written:]


def _plugin_name(impl):
    module = getattr(impl.plugin, "__file__", None) or impl.plugin_name
    if isinstance(module, str) and _root and module.startswith(_root):
        return os.path.relpath(module, _root)
    return str(impl.plugin_name)


def _hook_owners(config):
    owners = {}
    for name in WATCHED_HOOKS:
        caller = getattr(config.pluginmanager.hook, name, None)
        if caller is None:
            continue
        names = []
        for impl in caller.get_hookimpls():
            plugin = impl.plugin
            module = getattr(plugin, "__name__", "") or ""
            if module.startswith(("_pytest.", "pytest", "pw_probe")) or plugin is _this():
                continue
            names.append(_plugin_name(impl))
        owners[name] = sorted(set(names))
    return owners


def _this():
    import sys

    return sys.modules.get(__name__)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _fd, _root
    raw = os.environ.pop("PW_PROBE_FD", None)
    if raw:
        _fd = int(raw)
        os.set_inheritable(_fd, False)
    _root = str(config.rootpath)
    _emit({"event": "start", "pid": os.getpid(), "rootdir": _root})
    if _narrow and _select:
        _register_narrowing(config)


def pytest_collectreport(report):
    if report.failed:
        _emit(
            {
                "event": "collect_error",
                "id": report.nodeid,
                "longrepr": str(report.longrepr)[-2000:],
            }
        )


def pytest_deselected(items):
    _emit({"event": "deselected", "ids": [item.nodeid for item in items]})


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Only the selected tests, when the grader selected some; the tests it named first, first."""
    if not (_select or _first):
        return
    keyed = [(_key_of(item), item) for item in items]
    if _select:
        wanted = set(_keys(_select))
        dropped = [item for key, item in keyed if not _selected(key, wanted)]
        keyed = [(key, item) for key, item in keyed if _selected(key, wanted)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
    if _first:
        order = {key: n for n, key in enumerate(_keys(_first))}
        keyed.sort(key=lambda pair: order.get(pair[0], len(order)))  # stable: the rest as found
    items[:] = [item for _, item in keyed]


def _register_narrowing(config):
    """Ignore at collection every file that holds no selected test, but never a directory, a
    conftest.py or a package's __init__.py: what the selected tests' files load stays as in a
    whole run. pytest 7 named the hook's path `collection_path`; pytest 6 only `path`."""
    files = {key.split("::", 1)[0] for key in _keys(_select)}
    root = os.path.abspath(str(config.rootpath))

    def ignored(path):
        path = os.path.abspath(str(path))
        if os.path.basename(path) in ("conftest.py", "__init__.py") or os.path.isdir(path):
            return None
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        return None if rel in files else True

    class Narrowing:
        def pytest_ignore_collect(self, collection_path):
            return ignored(collection_path)

    class OldNarrowing:
        def pytest_ignore_collect(self, path):
            return ignored(path)

    spec = getattr(config.hook.pytest_ignore_collect, "spec", None)
    names = getattr(spec, "argnames", ()) or ()
    global _narrowing
    _narrowing = Narrowing() if "collection_path" in names else OldNarrowing()
    config.pluginmanager.register(_narrowing, "pw-narrowing")


def _selected(key, wanted):
    """A key the grader listed, or one of a file it listed as `FILE::` (every test of it)."""
    return key in wanted or key.split("::", 1)[0] + "::" in wanted


def _keys(path):
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


def _key_of(item):
    try:
        return stable_key(item) or item.nodeid
    except Exception:
        return item.nodeid


def stable_key(item):
    """What a test is, whatever its printed id says: its file, its classes, its function, and its
    position in each parametrize list. Ids that embed a time, a random value, an address or a temp
    path change from run to run; this does not. None when it would equal the node id."""
    callspec = getattr(item, "callspec", None)
    indices = getattr(callspec, "indices", None)
    if not indices:
        return None
    head = item.nodeid.split("[", 1)[0]
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    if not head.endswith("::" + name):
        return None
    where = ",".join(f"{arg}={indices[arg]}" for arg in sorted(indices))
    return f"{head}[#{where}]"


_TREE = os.environ.get("PW_REPO", "")  # the tree under grade (pytest's rootdir may be a part)


def _in_root(path):
    root = _TREE or _root
    return bool(root) and (path == root or path.startswith(root.rstrip("/") + "/"))


def _outside(path):
    """Files of the interpreter, its environment and the probe are no part of the tree."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, _HERE}
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes if p)


def _surface(config):
    """What the run is made of besides its tests: the configuration file pytest read, every
    plugin registered (conftests included) with the file it came from, the distributions of
    entry-point plugins, and the import path."""
    plugins = []
    for name, plugin in config.pluginmanager.list_name_plugin():
        module = getattr(plugin, "__name__", "") or ""
        grader = plugin is _this() or plugin is _narrowing
        if plugin is None or module.startswith("_pytest.") or grader:
            continue
        where = str(getattr(plugin, "__file__", "") or "")
        if str(name).isdigit():  # registered without a name: pluggy named it by id()
            kind = type(plugin)
            name = f"{kind.__module__}.{kind.__qualname__}"
        plugins.append([str(name), where])
    dists = []
    try:
        for plugin, dist in config.pluginmanager.list_plugin_distinfo():
            project = getattr(dist, "project_name", None) or getattr(dist, "name", "")
            dists.append([str(getattr(plugin, "__name__", "")), str(project)])
    except Exception:
        pass
    inipath = getattr(config, "inipath", None) or getattr(config, "inifile", None)
    return {
        "inifile": str(inipath) if inipath else "",
        "plugins": sorted(plugins),
        "dists": sorted(dists),
        "sys_path": [p for p in sys.path if p and not _outside(p)],
    }


@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item):
    # After pytest's own setup: it has set PYTEST_CURRENT_TEST by then.
    if not _environ:
        _environ.extend(sorted(os.environ))


def _loaded():
    modules = set()
    everywhere = set()  # every module file, in the tree or not
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith("/"):
            path = os.path.normpath(path)
            everywhere.add(path)
            if not _outside(path):
                modules.add(path)
    opened = {p for p in (pw_opened.opened if pw_opened else ()) if not _outside(p)}
    written_anywhere = set(pw_opened.written) if pw_opened else set()
    written = {p for p in written_anywhere if not _outside(p)}
    return {
        "modules": sorted(modules),
        "opened": sorted(opened),
        "written": sorted(written),
        "escaped": sorted(pw_opened.escaped) if pw_opened else None,
        # Modules imported from a file this process wrote, wherever it is (a /tmp sitedir), and
        # from anywhere but the tree, the interpreter's environment and the grader's folder.
        "written_modules": sorted(everywhere & written_anywhere),
        "foreign_modules": sorted(p for p in everywhere if not _outside(p) and not _in_root(p)),
        "environ": list(_environ),
        "harness_modules": _harness_modules,
        "test_modules": sorted(_test_modules),
        "hook_words": sorted(_hook_words),
    }


def _ending(item, raised):
    """How a test's body ended: `raised` (it failed or errored), `skipped` (a skip or xfail
    exception), or `returned`. A unittest case raises nothing: its failures are kept on the item
    (`_excinfo`) for the report."""
    if raised is None:
        kept = getattr(item, "_excinfo", None) or ()
        raised = next((info.value for info in kept if not _skips(info.value)), None)
        if raised is None:
            return "skipped" if kept else "returned"
    return "skipped" if _skips(raised) else "raised"


def _skips(exc):
    import unittest

    return isinstance(exc, (pytest.skip.Exception, pytest.xfail.Exception, unittest.SkipTest))


def _watch_function(item):
    """The test function itself, as pytest's pyfunc_call hook will call it: its ending is
    recorded below every hook (a hook implementation that swallows the function's exception
    leaves the runtest watch seeing a return). Coroutine functions are left alone: plugins
    tell them by their type."""
    import inspect

    function = getattr(item, "obj", None)
    if not callable(function) or not isinstance(item, pytest.Function):
        return
    if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
        return
    nodeid = item.nodeid

    def test_function(*args, **kwargs):
        __tracebackhide__ = True
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:
            _emit({"event": "body", "id": nodeid, "ended": _ending(item, exc), "level": "function"})
            raise
        _emit({"event": "body", "id": nodeid, "ended": "returned", "level": "function"})
        return result

    test_function.__wrapped__ = function
    item.obj = test_function


def _watch_body(item):
    """Record how the test body itself ended, on the pipe, past every hook: the reports reach
    this plugin through the hook machinery, which may be the code under test (pluggy, pytest),
    and the body's own ending is what a report is checked against."""
    _watch_function(item)
    run = item.runtest
    nodeid = item.nodeid

    def runtest():
        __tracebackhide__ = True
        try:
            run()
        except BaseException as exc:
            _emit({"event": "body", "id": nodeid, "ended": _ending(item, exc)})
            raise
        _emit({"event": "body", "id": nodeid, "ended": _ending(item, None)})

    item.runtest = runtest


def _plain(item):
    """[module, qualified name, arguments] of a test a user's script could call as pytest calls
    it: a function, or a method of a class made with no arguments, with no fixture (none of its
    own, no autouse one, no xunit set-up) and no coroutine; its arguments (name -> repr) only
    parameters given directly, each a literal that reads back equal. Else None."""
    if type(item).__name__ != "Function" or getattr(item, "fixturenames", None) is None:
        return None
    arguments = _direct_arguments(item)
    if arguments is None or set(item.fixturenames) - set(arguments):
        return None
    module = getattr(getattr(item, "module", None), "__name__", None)
    function = getattr(item, "function", None)
    if not isinstance(module, str) or not inspect.isfunction(function):
        return None
    if inspect.iscoroutinefunction(function) or inspect.isgeneratorfunction(function):
        return None
    if inspect.isasyncgenfunction(function):
        return None
    if (getattr(item, "originalname", None) or item.name) != function.__name__:
        return None
    cls = getattr(item, "cls", None)
    if cls is None:
        return [module, function.__name__, arguments]
    if not isinstance(cls, type) or "__init__" in vars(cls) or "__new__" in vars(cls):
        return None
    if any(base.__module__.startswith("unittest") for base in cls.__mro__):
        return None
    return [module, f"{cls.__qualname__}.{function.__name__}", arguments]


def _direct_arguments(item):
    """The test's parameters given straight to it by `parametrize` (name -> repr), or None when
    one goes through a fixture (indirect) or is no literal a script can rebuild."""
    import ast

    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return {}
    given = dict(getattr(callspec, "funcargs", None) or {})  # pytest before 8
    defined = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
    for name, value in dict(getattr(callspec, "params", {}) or {}).items():
        definitions = defined.get(name) or ()
        func = getattr(definitions[-1], "func", None) if definitions else None
        if getattr(func, "__name__", "") != "get_direct_param_fixture_func":
            return None  # a fixture's parameter
        given[name] = value
    out = {}
    for name, value in given.items():
        text = repr(value)
        try:
            back = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        if type(back) is not type(value) or back != value or len(text) > 2000:
            return None
        out[str(name)] = text
    return out


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    keys = {}
    watched = []
    plain = {}
    for item in session.items:
        try:
            found = _plain(item)
        except Exception:
            found = None
        if found is not None:
            plain[item.nodeid] = found
        try:
            key = stable_key(item)
        except Exception:
            key = None
        if key is not None:
            keys[item.nodeid] = key
        module = getattr(getattr(item, "module", None), "__name__", None)
        if isinstance(module, str):
            _test_modules.add(module)
        try:
            _watch_body(item)
        except Exception:
            continue
        watched.append(item.nodeid)
    for name in dir(session.config.hook):
        caller = getattr(session.config.hook, name, None)
        spec = getattr(caller, "spec", None)
        if spec is None:
            continue
        _hook_words.add(name)
        _hook_words.update(getattr(spec, "argnames", ()) or ())
    conftests = []
    for plugin in session.config.pluginmanager.get_plugins():
        name = getattr(plugin, "__name__", None)
        where = getattr(plugin, "__file__", None) or ""
        if isinstance(name, str) and str(where).endswith("conftest.py"):
            _test_modules.add(name)
            conftests.append(name)
    _emit(
        {
            "event": "collected",
            "ids": [item.nodeid for item in session.items],
            "keys": keys,
            "watched": watched,
            "plain": plain,
            "conftests": conftests,
            "hooks": _hook_owners(session.config),
            "surface": _surface(session.config),
        }
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    _emit({"event": "collected", "ids": list(ids), "worker": str(node.gateway.id)})


def subtest_context(report):
    """The context of a subtest's report, or None for a test's own report.

    A test with subtests (unittest's `subTest`, the `subtests` fixture) sends a call report per
    subtest under the test's node id, beside its own: pytest 9's `SubtestReport` and the
    pytest-subtests plugin's `SubTestReport` both carry a `context` with `msg` and `kwargs`. The
    shape is what is detected, not a class name, so every version of either is recognised."""
    context = getattr(report, "context", None)
    if not (hasattr(context, "msg") and hasattr(context, "kwargs")):
        return None
    msg = context.msg
    try:
        kwargs = {str(k): str(v) for k, v in dict(context.kwargs or {}).items()}
    except Exception:
        kwargs = {}
    return {"msg": None if msg is None else str(msg), "kwargs": kwargs}


def pytest_runtest_logreport(report):
    event = {
        "event": "report",
        "id": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "xfail": hasattr(report, "wasxfail"),
        "duration": round(getattr(report, "duration", 0.0), 6),
    }
    subtest = subtest_context(report)
    if subtest is not None:
        event["subtest"] = subtest
    _emit(event)


def pytest_runtest_logstart(nodeid, location):
    if pw_calls is not None:
        pw_calls.current_test = nodeid  # before the test's fixtures run


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if pw_calls is not None:
        pw_calls.finish()
    _emit({"event": "loaded", **_loaded()})
    _emit({"event": "finish", "exitstatus": int(exitstatus)})
