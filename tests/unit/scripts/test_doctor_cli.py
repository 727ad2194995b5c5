"""scripts/doctor run as a subprocess: arguments, output and exit codes."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOCTOR = os.path.join(ROOT, "scripts", "doctor")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "logs")


def run(*args, stdin=None, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, DOCTOR] + list(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60, env=full_env)


def test_json_output_for_a_log_file():
    proc = run(os.path.join(FIXTURES, "02_gpu_oom_free_memory_less_than_utilization_docker.log"), "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["category"] == "gpu_oom"
    assert {"category", "evidence", "fix", "confidence", "other_findings"} <= set(result)
    assert "gpu_memory_utilization" in result["fix"]


def test_human_output():
    proc = run(os.path.join(FIXTURES, "53_port_in_use_compose_uvicorn_bind_8000.log"))
    assert proc.returncode == 0
    assert "Category:   port_in_use" in proc.stdout
    assert "vllm_service_port" in proc.stdout


def test_stdin_dash():
    log = "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).\n"
    proc = run("-", "--json", stdin=log)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["category"] == "tensor_parallel_config"


def test_unknown_exits_one():
    proc = run("-", "--json", stdin="INFO everything is fine\n")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["category"] == "unknown"


def test_usage_errors_exit_two(tmp_path):
    assert run("--no-such-option").returncode == 2
    assert run(str(tmp_path / "missing.log")).returncode == 2
    assert run("a.log", "b.log").returncode == 2


def test_live_flag_runs_on_this_host():
    proc = run(os.path.join(FIXTURES, "55_port_in_use_vllm_port_9000_oneline.log"), "--json", "--live")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["category"] == "port_in_use"


def test_library_found_through_env(tmp_path):
    # A copy of the script outside the repository finds vllm_doctor through VLLM_DOCTOR_LIB.
    copy = tmp_path / "doctor"
    copy.write_text(open(DOCTOR).read())
    proc = subprocess.run([sys.executable, str(copy), "-", "--json"], input="RuntimeError: UVA is not available\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                          env=dict(os.environ, VLLM_DOCTOR_LIB=os.path.join(ROOT, "plugins", "module_utils")))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["category"] == "wsl_specific"


def test_no_log_anywhere_is_a_usage_error():
    with open("/proc/1/comm") as handle:
        systemd = handle.read().strip() == "systemd"
    if systemd or os.path.exists("/var/log/vllm/vllm.log"):
        import pytest
        pytest.skip("this host has a journal or a launcher log to read")
    proc = run("--json")
    assert proc.returncode == 2
    assert "/var/log/vllm/vllm.log" in proc.stderr


def test_human_output_says_how_much_prose_was_ignored():
    post = ("I am trying to start vLLM on my box and it fails, please help.\n"
            "I already tried a smaller model and I have updated my driver.\n"
            "Here is the log, you can see the error at the end:\n"
            "(APIServer pid=1) INFO 12-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
            "(APIServer pid=1) ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): "
            "address already in use\n")
    proc = run("-", stdin=post)
    assert proc.returncode == 0, proc.stderr
    assert "Category:   port_in_use" in proc.stdout
    assert "Ignored:    3 lines of prose" in proc.stdout
    result = json.loads(run("-", "--json", stdin=post).stdout)
    assert result["ignored_lines"] == 3
