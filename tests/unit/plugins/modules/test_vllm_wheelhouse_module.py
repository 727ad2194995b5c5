"""The vllm_wheelhouse module with a stand-in for ``python -m pip download`` that writes the
lock's files into --dest and prints what pip prints, counting its runs."""
import json
import os
import stat
import tarfile

import pytest

from vllm_testlib import load_module

vllm_wheelhouse = load_module("vllm_wheelhouse")

LOCK = "idna==3.10\nsix==1.17.0\n"
ARGS = ["--no-deps", "--only-binary=:all:", "--python-version", "311"]

FAKE_PIP = r"""#!/usr/bin/env python3
import os, sys
argv = sys.argv[1:]
assert argv[:3] == ["-m", "pip", "download"], argv
dest = argv[argv.index("--dest") + 1]
lock = argv[argv.index("--requirement") + 1]
with open(os.environ["FAKE_PIP_LOG"], "a") as log:
    log.write(" ".join(argv) + "\n")
if os.environ.get("FAKE_PIP_FAIL"):
    print("ERROR: No matching distribution found for six==1.17.0", file=sys.stderr)
    sys.exit(1)
for line in open(lock):
    name, version = line.strip().split("==")
    wheel = os.path.join(dest, "%s-%s-py3-none-any.whl" % (name, version))
    if os.path.exists(wheel):
        print("  File was already downloaded " + wheel)
    else:
        with open(wheel, "wb") as handle:
            handle.write(name.encode() * 100)
        print("Saved " + wheel)
print("Successfully downloaded")
"""


@pytest.fixture
def fake_python(tmp_path, monkeypatch):
    path = tmp_path / "fake-python"
    path.write_text(FAKE_PIP)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_PIP_LOG", str(tmp_path / "pip.log"))
    return path


def _runs(tmp_path):
    log = tmp_path / "pip.log"
    return log.read_text().splitlines() if log.exists() else []


def test_downloads_once_then_trusts_its_record(module_runner, tmp_path, fake_python):
    folder = tmp_path / "wh" / "sha"
    args = {"path": str(folder), "lock": LOCK, "pip_args": ARGS, "python": str(fake_python),
            "archive": True}
    first = module_runner(vllm_wheelhouse, args)
    assert first["changed"] is True and first["downloaded"] is True, first
    assert sorted(first["saved"]) == ["idna-3.10-py3-none-any.whl", "six-1.17.0-py3-none-any.whl"]
    assert first["count"] == 2 and first["bytes"] == 400 + 300
    assert (folder / "requirements.lock").read_text() == LOCK
    assert first["cmd"][1:4] == ["-m", "pip", "download"] and first["cmd"][-len(ARGS):] == ARGS
    with tarfile.open(first["archive"]) as tar:
        assert sorted(tar.getnames()) == sorted(first["files"])

    again = module_runner(vllm_wheelhouse, args)
    assert again["changed"] is False and again["downloaded"] is False
    assert again["files"] == first["files"] and again["archive"] == first["archive"]
    assert len(_runs(tmp_path)) == 1  # pip did not run again

    # a wheel removed from the wheelhouse: pip runs again and fetches only that one
    os.unlink(folder / "six-1.17.0-py3-none-any.whl")
    third = module_runner(vllm_wheelhouse, args)
    assert third["downloaded"] is True and third["saved"] == ["six-1.17.0-py3-none-any.whl"]
    assert len(_runs(tmp_path)) == 2


def test_other_target_is_its_own_job_in_the_same_folder(module_runner, tmp_path, fake_python):
    folder = tmp_path / "sha"
    base = {"path": str(folder), "lock": LOCK, "python": str(fake_python)}
    one = module_runner(vllm_wheelhouse, dict(base, pip_args=ARGS))
    two = module_runner(vllm_wheelhouse, dict(base, pip_args=ARGS[:-1] + ["312"]))
    assert one["key"] != two["key"] and two["downloaded"] is True and two["saved"] == []
    assert len(_runs(tmp_path)) == 2
    records = sorted(p for p in os.listdir(folder) if p.startswith(".complete-"))
    assert len(records) == 2
    assert json.loads((folder / records[0]).read_text())["lock_sha256"] == one["sha256"]


def test_check_mode_changes_nothing(module_runner, tmp_path, fake_python):
    folder = tmp_path / "sha"
    result = module_runner(vllm_wheelhouse, {"path": str(folder), "lock": LOCK, "pip_args": ARGS,
                                             "python": str(fake_python), "_ansible_check_mode": True})
    assert result["changed"] is True and result["downloaded"] is True
    assert not folder.exists() and _runs(tmp_path) == []


def test_pip_failure_and_empty_lock_fail_with_the_reason(module_runner, tmp_path, fake_python, monkeypatch):
    folder = tmp_path / "sha"
    empty = module_runner(vllm_wheelhouse, {"path": str(folder), "lock": "  \n", "python": str(fake_python)})
    assert empty["failed"] and "lock file" in empty["msg"] and "empty" in empty["msg"]
    monkeypatch.setenv("FAKE_PIP_FAIL", "1")
    failed = module_runner(vllm_wheelhouse, {"path": str(folder), "lock": LOCK, "pip_args": ARGS,
                                             "python": str(fake_python)})
    assert failed["failed"] and "No matching distribution found for six==1.17.0" in failed["msg"]
    assert not [p for p in os.listdir(folder) if p.startswith(".complete-")]
