"""vllm_wslconfig (the module) against hostile files: a link stays a link, FIFOs fail at once,
backups never go through a link, sizes outside the bounds fail naming the role variable."""
import os
import signal

import pytest

from vllm_testlib import load_module

vllm_wslconfig = load_module("vllm_wslconfig")
GIB = 1024 ** 3
SAMPLE = b"# mine\r\n[wsl2]\r\nmemory=8GB # small\r\nprocessors=2\r\n"


@pytest.fixture
def alarm():
    def boom(signum, frame):
        raise AssertionError("blocked")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_a_linked_wslconfig_is_edited_through_the_link(module_runner, tmp_path):
    real = tmp_path / "dotfiles" / "wslconfig"
    real.parent.mkdir()
    real.write_bytes(SAMPLE)
    link = tmp_path / ".wslconfig"
    link.symlink_to(real)
    result = module_runner(vllm_wslconfig, {"path": str(link), "memory": "16GB"})
    assert result["changed"] and result["real_path"] == str(real)
    assert link.is_symlink() and os.readlink(str(link)) == str(real)
    assert real.read_bytes() == SAMPLE.replace(b"memory=8GB", b"memory=16GB")
    assert result["backup_file"] == str(real) + ".vllm-backup"
    assert not module_runner(vllm_wslconfig, {"path": str(link), "memory": "16GB"})["changed"]


def test_a_dangling_link_fails_and_stays(module_runner, tmp_path):
    link = tmp_path / ".wslconfig"
    link.symlink_to(tmp_path / "gone")
    result = module_runner(vllm_wslconfig, {"path": str(link), "memory": "16GB"})
    assert result["failed"] and "is a link to" in result["msg"] and "which does not exist" in result["msg"]
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_a_fifo_fails_at_once(module_runner, tmp_path, alarm):
    path = tmp_path / ".wslconfig"
    os.mkfifo(str(path))
    result = module_runner(vllm_wslconfig, {"path": str(path), "memory": "16GB"})
    assert result["failed"] and "is a FIFO; refused" in result["msg"]


def test_the_backup_skips_a_planted_dangling_link(module_runner, tmp_path):
    path = tmp_path / ".wslconfig"
    path.write_bytes(SAMPLE)
    victim = tmp_path / "cron.d-entry"
    (tmp_path / ".wslconfig.vllm-backup").symlink_to(victim)
    result = module_runner(vllm_wslconfig, {"path": str(path), "memory": "16GB"})
    assert result["backup_file"] == str(path) + ".vllm-backup.1"
    assert not victim.exists() and (tmp_path / ".wslconfig.vllm-backup").is_symlink()


@pytest.mark.parametrize("args,message", [
    ({"memory": "0"}, "vllm_wsl_memory: '0' is below 1GB"),
    ({"memory": "1KB"}, "vllm_wsl_memory: '1KB' is below 1GB"),
    ({"memory": "64GB", "windows_memory": str(32 * GIB)}, "vllm_wsl_memory: '64GB' is more than the machine's RAM"),
    ({"swap": "1KB"}, "vllm_wsl_swap: '1KB' is below 1GB"),
    ({"memory": "auto", "windows_memory": "2GB"}, "vllm_wsl_windows_memory: '2GB' is below 5GB"),
    ({"memory": "auto", "windows_memory": str(32 * GIB), "overhead": "1.5GB"},
     "vllm_wsl_runtime_overhead: '1.5GB' is not a whole number"),
])
def test_sizes_outside_the_bounds_fail_naming_the_variable(module_runner, tmp_path, args, message):
    path = tmp_path / ".wslconfig"
    path.write_bytes(SAMPLE)
    result = module_runner(vllm_wslconfig, dict(args, path=str(path)))
    assert result["failed"] and message in result["msg"] and "accepted:" in result["msg"], result["msg"]
    assert path.read_bytes() == SAMPLE


def test_auto_in_any_case_is_the_rule_as_preflight_accepts_it(module_runner, tmp_path):
    path = tmp_path / ".wslconfig"
    path.write_bytes(SAMPLE)
    result = module_runner(vllm_wslconfig, {"path": str(path), "memory": "AUTO", "windows_memory": str(32 * GIB),
                                            "model_bytes": 14 * GIB})
    assert not result.get("failed"), result.get("msg")
    assert result["changes"] == [{"section": "wsl2", "key": "memory", "old": "8GB", "new": "18GB"}]
