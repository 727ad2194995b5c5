"""vllm_wslconfig and vllm_model_relocate as Ansible runs them (exit_json/fail_json raise)."""
import os

import pytest

from vllm_testlib import load_module

vllm_model_relocate = load_module("vllm_model_relocate")
vllm_wslconfig = load_module("vllm_wslconfig")

GIB = 1024 ** 3
SAMPLE = b"# mine\r\n[wsl2]\r\nmemory=8GB # small\r\nprocessors=2\r\n"


@pytest.fixture
def wslconfig(tmp_path):
    path = tmp_path / ".wslconfig"
    path.write_bytes(SAMPLE)
    return str(path)


def test_rule_raises_memory_with_backup(module_runner, wslconfig):
    args = {"path": wslconfig, "memory": "auto", "swap": "auto", "windows_memory": str(32 * GIB),
            "model_bytes": 14 * GIB}
    result = module_runner(vllm_wslconfig, args)
    assert result["changed"] and result["backup_file"] == wslconfig + ".vllm-backup"
    assert open(wslconfig, "rb").read() == b"# mine\r\n[wsl2]\r\nmemory=18GB # small\r\nprocessors=2\r\n"
    assert open(result["backup_file"], "rb").read() == SAMPLE
    assert result["changes"] == [{"section": "wsl2", "key": "memory", "old": "8GB", "new": "18GB"}]
    assert "memory=8GB # small" in result["diff"]["before"] and "memory=18GB # small" in result["diff"]["after"]
    again = module_runner(vllm_wslconfig, args)
    assert not again["changed"] and "backup_file" not in again


def test_check_mode_writes_nothing(module_runner, wslconfig):
    result = module_runner(vllm_wslconfig, {"path": wslconfig, "memory": "20GB", "_ansible_check_mode": True})
    assert result["changed"]
    assert open(wslconfig, "rb").read() == SAMPLE
    assert not os.path.exists(wslconfig + ".vllm-backup")


def test_wsl_conf_created_and_boolean_setting(module_runner, tmp_path):
    path = str(tmp_path / "wsl.conf")
    result = module_runner(vllm_wslconfig, {"path": path, "settings": {"boot.systemd": True}})
    assert result["changed"] and open(path).read() == "[boot]\nsystemd=true\n"
    assert not module_runner(vllm_wslconfig, {"path": path, "settings": {"boot.systemd": "true"}})["changed"]


def test_bad_size_fails_naming_it(module_runner, wslconfig):
    result = module_runner(vllm_wslconfig, {"path": wslconfig, "memory": "lots"})
    assert result["failed"] and "'lots' is not a size" in result["msg"] and "nothing was changed" in result["msg"]
    assert open(wslconfig, "rb").read() == SAMPLE


def test_utf16_converted_with_warning(module_runner, tmp_path):
    path = tmp_path / ".wslconfig"
    path.write_bytes("[wsl2]\r\nmemory=8GB\r\n".encode("utf-16"))
    result = module_runner(vllm_wslconfig, {"path": str(path), "settings": {}})
    assert result["changed"] and result["converted_from"] == "utf-16-le"
    assert path.read_bytes() == b"[wsl2]\r\nmemory=8GB\r\n"
    assert (tmp_path / ".wslconfig.vllm-backup").read_bytes().startswith(b"\xff\xfe")


def test_relocate_module_leaves_a_native_model_where_it_is(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    result = module_runner(vllm_model_relocate, {"src": str(src), "store": str(tmp_path / "store"), "name": "m"})
    assert not result["changed"] and result["path"] == str(src) and not result["on_windows_drive"]


def test_relocate_module_probe_then_copy(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    store = str(tmp_path / "store")
    args = {"src": str(src), "store": store, "name": "m", "force": True,
            "progress_file": str(tmp_path / "progress")}
    probe = module_runner(vllm_model_relocate, dict(args, probe=True))
    assert probe["needed"] and not probe["changed"] and not os.path.exists(store)
    done = module_runner(vllm_model_relocate, args)
    assert done["changed"] and done["copied_files"] == 1 and done["path"] == os.path.join(store, "m")
    assert open(str(tmp_path / "progress")).read().startswith("done: 1 files copied")
    again = module_runner(vllm_model_relocate, dict(args, probe=True))
    assert not again["needed"] and again["verified_files"] == 1


def test_relocate_module_fails_with_the_reason(module_runner, tmp_path):
    src = tmp_path / "m"
    src.mkdir()
    (src / "config.json").write_text("{}")
    (tmp_path / "store" / "m").mkdir(parents=True)
    result = module_runner(vllm_model_relocate, {"src": str(src), "store": str(tmp_path / "store"), "name": "m",
                                                 "force": True})
    assert result["failed"] and "not made by this relocation" in result["msg"]


def test_a_setting_if_absent_is_added_once_and_never_replaces_the_users(module_runner, tmp_path):
    path = tmp_path / "wsl.conf"
    path.write_text("[boot]\nsystemd=false\n")
    args = {"path": str(path), "settings_if_absent": {"boot.command": "/usr/local/sbin/vllm-launcher start"}}
    result = module_runner(vllm_wslconfig, args)
    assert result["changed"]
    assert path.read_text() == "[boot]\nsystemd=false\ncommand=/usr/local/sbin/vllm-launcher start\n"
    assert not module_runner(vllm_wslconfig, args)["changed"]
    path.write_text("[boot]\ncommand=/opt/mine.sh\n")
    result = module_runner(vllm_wslconfig, args)
    assert not result["changed"] and path.read_text() == "[boot]\ncommand=/opt/mine.sh\n"
    assert result["warnings_rule"] == ["[boot] command is already '/opt/mine.sh' in the file: left as it "
                                       "is, so it does not run '/usr/local/sbin/vllm-launcher start'"]
