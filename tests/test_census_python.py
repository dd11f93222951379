"""The Python AST inventory: every construct the census must see, and what it must not."""

from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from patchwitness.census.python import inventory_python
from patchwitness.pytest_config import PytestConfig


def inv(src: str, test_file: bool = True, config: PytestConfig | None = None):
    return inventory_python(
        textwrap.dedent(src).encode(), "tests/test_x.py", config or PytestConfig(), test_file
    )


def kinds(items, kind):
    return [(it.scope, it.name) for it in items if it.kind == kind]


def test_tests_functions_classes_and_unittest():
    items = inv("""
        import unittest

        def test_a(): pass
        def helper(): pass

        class TestB:
            def test_c(self): pass
            def not_a_test(self): pass

        class Helper:
            def test_ignored(self): pass

        class TestWithInit:
            def __init__(self): pass
            def test_never_collected(self): pass

        class Case(unittest.TestCase):
            def test_d(self): pass
            def setUp(self): pass
    """)
    assert kinds(items, "test") == [
        ("test_a", "pytest"),
        ("TestB::test_c", "pytest"),
        ("Case::test_d", "unittest"),
    ]


def test_nested_function_is_not_a_test():
    items = inv("""
        def test_outer():
            def test_inner(): pass
            assert 1 == 1
    """)
    assert kinds(items, "test") == [("test_outer", "pytest")]


def test_assert_statement_keyed_by_normalized_expression():
    a = inv("def test_a():\n    assert total ==   19.99\n")
    b = inv("def test_a():\n    # moved\n\n    assert (total == 19.99)\n")
    key = lambda items: [it.key for it in items if it.kind == "assert"]  # noqa: E731
    assert key(a) == key(b)
    assert [it.line for it in a if it.kind == "assert"] == [2]


def test_weakening_changes_the_key():
    strong = inv("def test_a():\n    assert total == 19.99\n")
    weak = inv("def test_a():\n    assert total\n")
    assert {it.key for it in strong if it.kind == "assert"} != {
        it.key for it in weak if it.kind == "assert"
    }


def test_constant_true_assert_is_not_a_witness():
    items = inv("def test_a():\n    assert True\n    assert 1\n    assert 'x'\n    assert x\n")
    assert len([it for it in items if it.kind == "assert"]) == 1


def test_tautological_assert_calls_are_not_witnesses():
    items = inv("""
        class T:
            def test_a(self):
                self.assertTrue(True)
                self.assertFalse(0)
                self.assertEqual(x, x)
                self.assertEqual(x, 1)
    """)
    assert [it.text for it in items if it.kind == "assert"] == ["x, 1"]


def test_duplicates_are_kept():
    items = inv("def test_a():\n    assert ok\n    assert ok\n")
    counts = Counter(it.key for it in items if it.kind == "assert")
    assert list(counts.values()) == [2]


def test_assertion_calls():
    items = inv("""
        import numpy as np
        import pytest
        from numpy.testing import assert_allclose
        from unittest import mock

        class T:
            def test_a(self, m):
                self.assertEqual(a, b)
                self.assertRaises(ValueError, f)
                self.fail("no")
                with pytest.raises(ValueError):
                    f()
                with pytest.warns(UserWarning):
                    g()
                assert x == pytest.approx(1.0)
                np.testing.assert_array_equal(a, b)
                assert_allclose(a, b)
                m.assert_called_once_with(3)
                raise AssertionError("boom")
    """)
    names = [name for _, name in kinds(items, "assert")]
    assert names == [
        "assertEqual",
        "assertRaises",
        "fail",
        "pytest.raises",
        "pytest.warns",
        "assert",
        "pytest.approx",
        "numpy.testing.assert_array_equal",
        "numpy.testing.assert_allclose",
        "m.assert_called_once_with",
        "raise AssertionError",
    ]
    assert all(scope == "T::test_a" for scope, _ in kinds(items, "assert"))


def test_asserts_in_helpers_are_scoped_to_the_helper():
    items = inv("def check(x):\n    assert x > 0\n\ndef test_a():\n    check(1)\n")
    assert kinds(items, "assert") == [("check", "assert")]


def test_commented_and_dead_asserts_are_not_counted():
    items = inv("""
        def test_a():
            # assert total == 19.99
            if False:
                assert total == 19.99
            while 0:
                assert other
            if DEBUG:
                assert live
            else:
                assert also_live
            return
            assert unreachable

        def test_b():
            pytest.skip("later")
            assert never
    """)
    texts = [it.text for it in items if it.kind == "assert"]
    assert texts == ["live", "also_live"]


def test_string_is_not_an_assert():
    items = inv('def test_a():\n    s = "assert x == 1"\n    assert s\n')
    assert [it.text for it in items if it.kind == "assert"] == ["s"]


def test_skip_markers():
    items = inv("""
        import pytest
        import unittest
        pytestmark = pytest.mark.skipif(True, reason="x")

        @pytest.mark.skip(reason="flaky")
        def test_a(): pass

        @pytest.mark.xfail
        def test_b(): pass

        def test_c():
            pytest.skip("no")

        def test_d():
            pytest.xfail("no")

        class T(unittest.TestCase):
            @unittest.skip("x")
            def test_e(self): pass

            def test_f(self):
                self.skipTest("x")

            @unittest.expectedFailure
            def test_g(self): pass

        def test_h():
            raise unittest.SkipTest("x")

        def test_i(request):
            request.applymarker(pytest.mark.xfail(reason="x"))
    """)
    assert kinds(items, "skip") == [
        ("", "pytest.mark.skipif"),
        ("test_a", "pytest.mark.skip"),
        ("test_b", "pytest.mark.xfail"),
        ("test_c", "pytest.skip"),
        ("test_d", "pytest.xfail"),
        ("T::test_e", "unittest.skip"),
        ("T::test_f", "skipTest"),
        ("T::test_g", "unittest.expectedFailure"),
        ("test_h", "raise SkipTest"),
        ("test_i", "pytest.mark.xfail"),
    ]


def test_parametrized_cases_and_param_marks():
    items = inv("""
        import pytest

        @pytest.mark.parametrize("x, y",
                                 [(1, 2), (3, 4), pytest.param(5, 6, marks=pytest.mark.skip)])
        def test_p(x, y):
            assert x < y

        @pytest.mark.parametrize("z", CASES)
        def test_q(z): pass
    """)
    cases = [it for it in items if it.kind == "case"]
    assert [(c.scope, c.text) for c in cases] == [
        ("test_p", "(1, 2)"),
        ("test_p", "(3, 4)"),
        ("test_p", "pytest.param(5, 6, marks=pytest.mark.skip)"),
        ("test_q", "CASES"),
    ]
    assert kinds(items, "skip") == [("test_p", "pytest.mark.skip")]


def test_definitions_that_change_the_machinery():
    items = inv(
        """
        import unittest, pytest

        def pytest_runtest_makereport(item, call):
            pass

        def pytest_collection_modifyitems(items):
            items.clear()

        def pytest_configure(config):
            pass

        class Base(unittest.TestCase):
            def assertEqual(self, a, b):
                pass

        unittest.TestCase.assertTrue = lambda *a: None
        setattr(unittest.TestCase, "assertIn", lambda *a: None)
    """,
        test_file=False,
    )
    names = sorted(name for _, name in kinds(items, "define"))
    assert names == [
        "assign:unittest.TestCase.assertTrue",
        "hook:pytest_collection_modifyitems",
        "hook:pytest_runtest_makereport",
        "override:assertEqual",
        "setattr:assertIn",
    ]


def test_conftest_has_no_tests_but_counts_asserts():
    items = inv("def test_looks_like_one():\n    assert x\n", test_file=False)
    assert kinds(items, "test") == []
    assert kinds(items, "assert") == [("test_looks_like_one", "assert")]


def test_custom_function_prefix():
    cfg = PytestConfig(python_functions=("check_",))
    items = inv("def check_a(): pass\ndef test_b(): pass\n", config=cfg)
    assert kinds(items, "test") == [("check_a", "pytest")]


def test_syntax_error_raises():
    with pytest.raises(SyntaxError):
        inv("def test_a(:\n")


def test_non_utf8_source_with_coding_cookie():
    src = "# -*- coding: latin-1 -*-\ndef test_a():\n    assert s == 'caf\xe9'\n".encode("latin-1")
    items = inventory_python(src, "tests/test_x.py", PytestConfig())
    assert [it.text for it in items if it.kind == "assert"] == ["s == 'café'"]
