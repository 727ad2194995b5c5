"""The decisions the roles' vars/ files used to make in inline Jinja, as plain functions (their
filters are checked against the former Jinja in tests/unit/plugins/filter/
test_vllm_filter_decisions.py)."""
import base64
import hashlib

import pytest

import vllm_day2
import vllm_model_check
import vllm_readiness
import vllm_report
import vllm_unit
import vllm_wheelhouse


def test_service_manager():
    booted = {"init": {"systemd_booted": True}}
    assert vllm_unit.service_manager("auto", booted) == "systemd"
    assert vllm_unit.service_manager("auto", {"init": {"systemd_booted": False}}) == "launcher"
    assert vllm_unit.service_manager("launcher", booted) == "launcher"
    assert vllm_unit.service_manager("systemd", {}) == "systemd"  # the facts are not read
    with pytest.raises(KeyError):  # as the Jinja failed on facts without init
        vllm_unit.service_manager("auto", {})


def test_tls_paths():
    assert vllm_readiness.tls_files(True, "/c", "/k") == {"certfile": "/c", "keyfile": "/k"}
    assert vllm_readiness.tls_files(False, "/c", "/k") == {}
    assert vllm_readiness.trusted_ca(True, "", "/c") == "/c"
    assert vllm_readiness.trusted_ca(True, "/ca", "/c") == "/ca"
    assert vllm_readiness.trusted_ca(False, "/ca", "/c") == ""


def test_absent_paths():
    assert vllm_day2.absent_paths(["/a", "/b"], "/store", True) == {"remove": ["/a", "/b", "/store"],
                                                                    "kept": []}
    assert vllm_day2.absent_paths(("/a",), "/store", False) == {"remove": ["/a"], "kept": ["/store"]}
    assert vllm_day2.absent_paths(None, "/s", False) == {"remove": [], "kept": ["/s"]}


def _slurp(text):
    return {"content": base64.b64encode(text.encode("utf-8")).decode("ascii")}


def test_options_before():
    assert vllm_report.options_before(None) == {}
    assert vllm_report.options_before({}) == {}
    assert vllm_report.options_before({"skipped": True}) == {}
    assert vllm_report.options_before(_slurp("")) == {}
    assert vllm_report.options_before(_slurp("port: 8000\nhost: '::'\n")) == {"port": 8000, "host": "::"}


def test_install_indexes():
    plan = {"index_url": "https://p", "extra_index_urls": ["https://e"]}
    assert vllm_wheelhouse.install_indexes(plan, "", [], True) == {
        "index_url": "https://p", "extra_index_urls": ["https://e"]}
    assert vllm_wheelhouse.install_indexes(plan, "", [], False) == {"index_url": "", "extra_index_urls": []}
    assert vllm_wheelhouse.install_indexes({}, "https://u", ["https://x"], True) == {
        "index_url": "https://u", "extra_index_urls": ["https://x"]}


def test_uv_argv():
    src = vllm_wheelhouse.uv_source_args("https://i", ["https://e"], ["/w"], "unsafe-best-match")
    assert src == ["--index-url", "https://i", "--extra-index-url=https://e", "--find-links=/w",
                   "--index-strategy", "unsafe-best-match"]
    assert vllm_wheelhouse.uv_source_args("", [], [], "") == []
    assert vllm_wheelhouse.uv_compile_argv("uv", "/v", "/l", "/r", ["--x"], ["triton"]) == [
        "uv", "pip", "compile", "--quiet", "--no-header", "--python", "/v/bin/python",
        "--output-file", "/l", "/r", "--x", "--no-emit-package=triton"]
    assert vllm_wheelhouse.uv_sync_argv("uv", "/v", "/l", ["--x"]) == [
        "uv", "pip", "sync", "--compile-bytecode", "--python", "/v/bin/python", "/l", "--x"]
    assert vllm_wheelhouse.uv_sync_argv("uv", "/v", "/l", ["--x"], True, "/wh")[-3:] == [
        "--no-index", "--find-links", "/wh"]


def test_wheelhouse_place_and_source(tmp_path):
    place = vllm_wheelhouse.wheelhouse_place("controller", "", "", str(tmp_path / "a" / ".." / "b"), "/py")
    assert place == {"delegate": "localhost", "root": str(tmp_path / "b"), "python": "/py"}
    assert vllm_wheelhouse.wheelhouse_place("wh1", "", "", "/x", "/py") == {
        "delegate": "wh1", "root": "/var/cache/vllm-provision/wheelhouse", "python": "/usr/bin/python3"}
    assert vllm_wheelhouse.wheelhouse_place("wh1", "/d", "/p")["root"] == "/d"
    assert vllm_wheelhouse.slurped_lock_sha256({}) == "<sha256 of requirements.lock>"
    assert vllm_wheelhouse.slurped_lock_sha256(None) == "<sha256 of requirements.lock>"
    assert vllm_wheelhouse.slurped_lock_sha256(_slurp("a==1\n")) == hashlib.sha256(b"a==1\n").hexdigest()
    assert vllm_wheelhouse.wheelhouse_source(True, "/h/abc", "https://u/", "abc") == "/h/abc"
    assert vllm_wheelhouse.wheelhouse_source(False, "/h/abc", "https://u//", "abc") == "https://u/abc/"


def test_model_source():
    assert [vllm_model_check.model_kind(s) for s in ("builtin", "/m", "org/m")] == ["builtin", "folder", "hub"]
    assert vllm_model_check.model_path("builtin", "builtin", "/b") == "/b"
    assert vllm_model_check.model_path("folder", "/m", "/b") == "/m"
    assert vllm_model_check.model_path("hub", "org/m", "/b") == ""
    assert vllm_model_check.model_default_name("builtin", "builtin") == "tiny-llama"
    assert vllm_model_check.model_default_name("hub", "org/m") == "org/m"
    assert vllm_model_check.model_default_name("folder", "/srv/m/llama") == "llama"


def test_model_source_state():
    import vllm_validate
    config = {"stat": {"exists": True}}
    assert vllm_validate.model_source_state({}, config) is None
    assert vllm_validate.model_source_state({"skipped": True}, {}) is None
    assert vllm_validate.model_source_state({"stat": {"exists": False}}, {}) is False
    assert vllm_validate.model_source_state({"stat": {"exists": True, "isdir": False}}, {}) == "not_a_dir"
    folder = {"stat": {"exists": True, "isdir": True}}
    assert vllm_validate.model_source_state(folder, {"stat": {"exists": False}}) == "no_config"
    assert vllm_validate.model_source_state(folder, config) is True


@pytest.mark.parametrize("value,expected", [(5, 5), ("7", 7), ("12.7", 12), (3.9, 3), (None, 0), ("x", 0),
                                            ("", 0), (True, 1)])
def test_jinja_int(value, expected):
    assert vllm_report._jinja_int(value) == expected


def test_messages():
    plan = {"vllm_package": "vllm", "vllm_version": "0.11.0", "backend": "cuda", "torch_version": "2.8.0",
            "python_version": "3.12", "python_source": "uv", "reasons": ["why"]}
    assert vllm_report.plan_lines(plan) == ["Plan: vllm 0.11.0 (cuda), torch 2.8.0, Python 3.12 (uv)", "why"]
    found = {"packages": {"vllm": "0.11.0"}, "torch_version": "2.8.0", "torch_cuda": None, "python": "3.12.3"}
    assert vllm_report.venv_ok_line(found, plan) == "venv ok: vllm 0.11.0, torch 2.8.0 (cpu), Python 3.12.3"
    found.update(torch_cuda="12.8", cuda_archs=["sm_90"], extensions_checked=2)
    assert vllm_report.venv_ok_line(found, plan) == (
        "venv ok: vllm 0.11.0, torch 2.8.0 (CUDA 12.8), Python 3.12.3, kernels for sm_90,"
        " 2 compiled extensions resolve")
    preflight = {"facts": {"architectures": ["A", "B"], "weights_format": "safetensors",
                           "weights_bytes": 1048576 * 3, "weight_files": ["x"]}, "warnings_list": ["w"]}
    assert vllm_report.model_preflight_lines(preflight, "/m") == [
        "Model /m: A, B, safetensors weights, 3.0 MiB in 1 files", "Warning: w"]
    assert vllm_report.summary_state(False, False, {}) == "NOT READY on release ?"
    assert vllm_report.summary_state(False, False, {"attempted_release": "r2", "rolled_back": True,
                                                    "release": "r1"}) == "NOT READY on release r2, rolled back to r1"
    assert vllm_report.summary_state(False, True, {}) == "NOT CHECKED (check mode)"
    assert vllm_report.summary_state(True, True, {}) == "READY"
    assert vllm_report.cuda_note("", {}) == ""
    assert vllm_report.cuda_note("native", {"cuda_variant": "cu128"}) == ", CUDA cu128 native"
    assert vllm_report.model_revision_note("main", "0123456789abcdef") == "@main (commit 0123456789ab)"
    assert vllm_report.model_revision_note(None, "abc") == ""


def test_summary_lists():
    assert vllm_report.summary_changes({"changed": True, "release": "r2"}, {"generated": False},
                                       {"options_changed": False, "restarted": True}, {}) == [
        "packages installed (r2)", "server (re)started"]
    assert vllm_report.summary_next_steps("launcher", {"wsl": {"is_wsl": True}},
                                          {"restart_required": True, "instruction": "wsl --shutdown"},
                                          ["n"])[1:] == ["wsl --shutdown", "n"]
    assert vllm_report.summary_next_steps("systemd", {}, {}, []) == []
    tail = vllm_report.summary_tail({"warnings": ["w"], "model_warnings": [], "compat_limits": [],
                                     "changed": [], "next_steps": ["a"], "day2": ["b"]})
    assert tail == ["Warning: w", "Changed: nothing", "Next:", "  a", "  b"]


def test_rollout():
    common = {"host": "h", "url": "http://h:8000/v1"}
    install = {"release": "r2", "previous_release": "r1"}
    failed = vllm_report.rollout_failed(common, True, False, True, install, "http://h:9/v1", {"msg": "m"})
    assert failed == dict(common, ready=False, rolled_back=True, previous_ready=False, release="r1",
                          url="http://h:9/v1", diagnosis=None, stage="", detail="m")
    assert vllm_report.rollout_message(dict(failed, previous_ready=False), {}, True, "r1", "refused", False) == [
        "vLLM did not become ready",
        "Rolled back to release r1 and the configuration before this run: it does NOT answer either (refused)"]
    assert vllm_report.rollout_message({}, {"msg": "m"}, False, "", "", True)[1].endswith(
        "run the play again).")
    assert vllm_report.backups_to_remove([{"backup_file": "/a"}, {}], {"dest": "/s"}, [{"dest": "/t"}, {}]) == [
        "/a", "/s", "/t"]


def test_wsl():
    import vllm_wslconfig
    assert vllm_wslconfig.windows_ram("32GB", {}) == "32GB"
    assert vllm_wslconfig.windows_ram("", {"skipped": True}) == ""
    assert vllm_wslconfig.windows_ram("", {"rc": 0, "stdout": " 1234\r\n"}) == "1234"
    assert vllm_wslconfig.windows_ram("", {"rc": 0, "stdout": "12 GB"}) == ""
    assert vllm_wslconfig.windows_ram("", {"rc": 1, "stdout": "1234"}) == ""
    assert vllm_wslconfig.wsl_notices("/p", {}, {"warnings_rule": ["w"]}) == ["w"]
    assert len(vllm_wslconfig.wsl_notices("", {}, {})) == 1
