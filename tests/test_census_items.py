"""Inventories as multisets, and the diff between two of them."""

from __future__ import annotations

from patchwitness.census.items import Inventory, Item, diff_inventories, multiset_minus


def item(kind="assert", file="t.py", scope="test_a", name="assert", fp="aaa", line=1):
    return Item(kind, file, scope, name, fp, line, "text")


def test_deleting_one_of_two_identical_asserts_is_a_removal():
    before = Inventory([item(line=1), item(line=2)])
    after = Inventory([item(line=1)])
    diff = diff_inventories(before, after)
    assert diff.removed == [item().key]
    assert diff.unexpected_removals == [item().key]
    assert diff.verdict == "fail"
    assert diff.after_assertions - diff.before_assertions == -1


def test_line_moves_do_not_change_the_inventory():
    diff = diff_inventories(Inventory([item(line=1)]), Inventory([item(line=40)]))
    assert diff.removed == [] and diff.added == []
    assert diff.verdict == "pass"


def test_allowlist_consumes_one_copy_per_entry():
    before = Inventory([item(), item(), item(kind="test", name="pytest", fp="t")])
    after = Inventory([])
    diff = diff_inventories(before, after, allow_remove=[item().key])
    assert diff.allowlisted_removals == [item().key]
    assert sorted(diff.unexpected_removals) == sorted(
        [item().key, item(kind="test", name="pytest", fp="t").key]
    )


def test_allowlisted_only_is_review():
    diff = diff_inventories(Inventory([item()]), Inventory([]), allow_remove=[item().key])
    assert diff.verdict == "review"
    assert diff.report()["verdict"] == "pass"


def test_weakened_pairs_removed_and_added_in_the_same_test():
    before = Inventory([item(fp="strong"), item(scope="test_b", fp="x")])
    after = Inventory([item(fp="weak"), item(scope="test_b", fp="x")])
    diff = diff_inventories(before, after)
    assert diff.weakened == [
        {
            "file": "t.py",
            "scope": "test_a",
            "removed": [item(fp="strong").key],
            "added": [item(fp="weak").key],
        }
    ]


def test_skips_and_definitions_added_are_reported():
    after = Inventory(
        [
            item(kind="skip", name="pytest.mark.skip"),
            item(kind="define", name="#define ASSERT_EQ", scope=""),
        ]
    )
    diff = diff_inventories(Inventory([]), after)
    assert diff.disabled == [item(kind="skip", name="pytest.mark.skip").key]
    assert diff.macro_redefinitions == [item(kind="define", name="#define ASSERT_EQ", scope="").key]
    assert diff.failures() == ["disabled", "macro-redefined"]


def test_existing_skips_are_not_new():
    inv = Inventory([item(kind="skip", name="pytest.mark.skip")])
    assert diff_inventories(inv, inv).disabled == []


def test_test_file_hashes_and_unreadable():
    before = Inventory([], {"t.py": "1", "u.py": "2"})
    after = Inventory([], {"t.py": "1", "u.py": "3", "v.py": "4"}, unreadable=["u.py"])
    diff = diff_inventories(before, after, infra_edits=["conftest.py"])
    assert diff.test_files_changed == ["u.py", "v.py"]
    assert diff.unreadable == ["u.py"]
    assert diff.infra_edits == ["conftest.py"]
    assert diff.failures() == ["infra-edited", "unreadable"]


def test_replace_files_splices_a_rescan():
    before = Inventory([item(file="a.py"), item(file="b.py")], {"a.py": "1", "b.py": "1"})
    rescan = Inventory([item(file="b.py", fp="new")], {"b.py": "2"})
    spliced = before.replace_files(rescan, ["b.py", "gone.py"])
    assert [it.key for it in spliced.items] == [
        item(file="a.py").key,
        item(file="b.py", fp="new").key,
    ]
    assert spliced.test_files == {"a.py": "1", "b.py": "2"}


def test_json_round_trip():
    inv = Inventory([item()], {"t.py": "h"}, ["bad.py"], "/root")
    again = Inventory.from_json(inv.to_json())
    assert again.items == inv.items and again.test_files == inv.test_files
    assert again.unreadable == ["bad.py"]


def test_multiset_minus():
    from collections import Counter

    assert multiset_minus(Counter({"a": 3, "b": 1}), Counter({"a": 1})) == ["a", "a", "b"]


def test_a_production_files_asserts_are_no_tests_but_its_macro_redefinitions_are_facts():
    lib = "include/lib.h"
    own_assert = item(file=lib, scope="", name="static_assert", fp="sa")
    redefined = item(kind="define", file=lib, scope="", name="#undef EXPECT_EQ", fp="d")
    lost_assert = item(file=lib, scope="f", name="assert", fp="old")
    before = Inventory([lost_assert])
    after = Inventory([own_assert, redefined])
    diff = diff_inventories(before, after, production=[lib])
    assert diff.added == [redefined.key]
    assert diff.removed == []
    assert diff.before_assertions == diff.after_assertions == 0
    assert diff.macro_redefinitions == [redefined.key]
    # The same file, not production: its asserts count.
    plain = diff_inventories(before, after)
    assert plain.removed == [lost_assert.key]
    assert plain.after_assertions == 1
