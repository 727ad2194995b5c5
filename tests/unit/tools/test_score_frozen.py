"""tests/tools/score_frozen.py: scores a committed doctor on one labelled set of tests/fixtures/logs."""
import importlib.util
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SPEC = importlib.util.spec_from_file_location("score_frozen", os.path.join(ROOT, "tests", "tools", "score_frozen.py"))
S = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(S)


def _has_commit(commit):
    return subprocess.run(["git", "-C", ROOT, "cat-file", "-e", commit + "^{commit}"],
                          capture_output=True).returncode == 0


def test_rows_are_the_labelled_rows_of_one_set():
    held = S.rows("heldout-a")
    dev = S.rows("dev")
    assert held and dev
    assert not set(name for name, _, _ in held) & set(name for name, _, _ in dev)
    assert all(name.startswith("1") for name, _, _ in held)
    assert S.rows("no-such-set") == []


def test_several_sets_joined_by_commas_are_their_union():
    d, e = S.rows("heldout-d"), S.rows("heldout-e")
    assert d and e
    # in the files' order (labels_set5.tsv holds set D, labels_set6.tsv set E), whatever the order asked
    assert S.rows("heldout-d,heldout-e") == S.rows(" heldout-e , heldout-d,") == d + e
    assert len(S.rows("heldout-d,no-such-set")) == len(d)


@pytest.mark.skipif(not _has_commit("HEAD"), reason="not a git checkout")
def test_score_counts_every_row_once_and_lists_the_misses():
    cases = S.rows("heldout-a")
    per_category, cause_score, misses = S.score(S.load_doctor("HEAD"), cases)
    assert sum(total for _, total in per_category.values()) == len(cases)
    correct = sum(ok for ok, _ in per_category.values())
    assert correct + len(misses) == len(cases)
    assert cause_score[1] == len([c for c in cases if c[2]]) and cause_score[0] <= correct
    # a wrong label must show up as a miss: the scorer compares, it does not echo
    name, category, cause = cases[0]
    other = next(c for c in sorted(per_category) if c != category)
    _, _, wrong = S.score(S.load_doctor("HEAD"), [(name, other, cause)])
    assert [m[0] for m in wrong] == [name]


@pytest.mark.skipif(not _has_commit("HEAD"), reason="not a git checkout")
def test_an_unknown_commit_is_a_clear_error():
    with pytest.raises(SystemExit) as error:
        S.load_doctor("0000000")
    assert "git show 0000000:plugins/module_utils/vllm_doctor.py failed" in str(error.value)
