"""roles/vllm_install/files/vllm_probe.py: the pure parts, and one run against a fake server command."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from vllm_testlib import ROOT

PROBE = os.path.join(ROOT, "roles", "vllm_install", "files", "vllm_probe.py")


def load_probe():
    spec = importlib.util.spec_from_file_location("vllm_test_probe", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


probe = load_probe()


def test_module_command_runs_the_module_with_help_all():
    assert probe.run_plan("/opt/v", ["bin/python", "-m", "vllm.entrypoints.openai.api_server"]) == \
        ("module", "vllm.entrypoints.openai.api_server", ["--help=all"])


def test_console_script_runs_from_the_venv_with_its_words():
    assert probe.run_plan("/opt/v", ["bin/vllm", "serve"]) == ("script", "/opt/v/bin/vllm", ["serve", "--help=all"])


@pytest.mark.parametrize("command", [[], ["/usr/bin/vllm", "serve"], ["bin/python", "x.py"], ["bin/python", "-m"]])
def test_commands_the_probe_cannot_run_are_refused(command):
    with pytest.raises(probe.ProbeError):
        probe.run_plan("/opt/v", command)


def test_cpu_retry_only_for_a_build_that_saw_no_gpu_and_only_once():
    err = "RuntimeError: Failed to infer device type, please set the environment variable"
    assert probe.needs_cpu_retry(err, {})
    assert not probe.needs_cpu_retry(err, {"VLLM_TARGET_DEVICE": "cpu"})
    assert not probe.needs_cpu_retry("ModuleNotFoundError: No module named 'vllm'", {})
    assert not probe.needs_cpu_retry("", {})


@pytest.mark.parametrize("code,ok", [(0, True), (None, True), (1, False), (2, False), ("boom", False)])
def test_help_exit_status(code, ok):
    assert probe.exit_ok(code) is ok


def test_archs_payload_flattens_tuples_and_sorts():
    payload = probe.archs_payload({"Zed", "Llama"}, [{"a": "LlamaForCausalLM", "b": ("X", "A")}, {"c": "X"}])
    assert payload == {"vllm": ["Llama", "Zed"], "transformers": ["A", "LlamaForCausalLM", "X"]}


def test_json_written_like_the_old_task_and_no_temp_file_left(tmp_path):
    path = str(tmp_path / "archs.json")
    probe.write_json_atomic(path, {"vllm": ["A"], "transformers": ["B"]})
    assert open(path).read() == json.dumps({"vllm": ["A"], "transformers": ["B"]})
    assert os.listdir(str(tmp_path)) == ["archs.json"]


@pytest.mark.parametrize("argv", [["--venv", "v"], ["--venv", "v", "--", "bin/vllm"],
                                  ["--bogus", "x", "--help-file", "h", "--archs-file", "a", "--venv", "v", "--"],
                                  ["--venv", "v", "--help-file", "h", "--archs-file", "--"]])
def test_bad_arguments_exit_2(argv, capsys):
    assert probe.main(argv) == 2
    assert "vllm_probe:" in capsys.readouterr().err


def _fake_venv(tmp_path, script_body):
    """A venv folder whose bin/fakevllm prints like a server's --help; ``vllm`` itself is absent."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "fakevllm").write_text(script_body)
    return venv


def test_failing_server_command_leaves_no_files_and_shows_its_error(tmp_path):
    venv = _fake_venv(tmp_path, "import sys\nsys.stderr.write('bad flag table\\n')\nsys.exit(3)\n")
    help_file, archs = tmp_path / "help.txt", tmp_path / "archs.json"
    proc = subprocess.run([sys.executable, PROBE, "--venv", str(venv), "--help-file", str(help_file),
                           "--archs-file", str(archs), "--", "bin/fakevllm", "serve"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "bad flag table" in proc.stderr
    assert sorted(os.listdir(str(tmp_path))) == ["help.txt.err", "venv"]


def test_no_device_failure_is_retried_once_with_the_cpu_target(tmp_path):
    # The fake fails like a CUDA build without a GPU unless VLLM_TARGET_DEVICE is set; the retry
    # then prints the help and fails on the missing vllm import (no vllm here): exactly one retry.
    body = ("import os, sys\n"
            "if not os.environ.get('VLLM_TARGET_DEVICE'):\n"
            "    raise RuntimeError('Failed to infer device type')\n"
            "print('usage: fake --help=all ' + os.environ['VLLM_TARGET_DEVICE'] + ' ' + ' '.join(sys.argv[1:]))\n"
            "sys.exit(0)\n")
    venv = _fake_venv(tmp_path, body)
    help_file, archs = tmp_path / "help.txt", tmp_path / "archs.json"
    env = dict(os.environ)
    env.pop("VLLM_TARGET_DEVICE", None)
    proc = subprocess.run([sys.executable, PROBE, "--venv", str(venv), "--help-file", str(help_file),
                           "--archs-file", str(archs), "--", "bin/fakevllm", "serve"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert help_file.read_text() == "usage: fake --help=all cpu serve --help=all\n"
    assert proc.returncode != 0  # the archs step imports vllm, which this Python lacks
    assert "vllm" in proc.stderr
    assert not archs.exists()
