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
