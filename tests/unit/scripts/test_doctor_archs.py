"""scripts/doctor-archs: the doctor's table of architectures, written from a vLLM wheel or registry.py."""
import os
import shutil
import subprocess
import sys
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "doctor-archs")
MODULE = os.path.join(ROOT, "plugins", "module_utils", "vllm_doctor_archs.py")
NAMES = ["Acme%02dForCausalLM" % i for i in range(60)]
REGISTRY = "_TEXT_GENERATION_MODELS = {\n%s}\n" % "".join(
    '    "%s": ("acme", "%s"),\n' % (name, name) for name in NAMES)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, timeout=60)


def _wheel(tmp_path, registry=REGISTRY):
    wheel = tmp_path / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(str(wheel), "w") as archive:
        archive.writestr("vllm/model_executor/models/registry.py", registry)
    return str(wheel)


def test_writes_the_table_from_a_wheel_then_checks_it(tmp_path):
    module = tmp_path / "vllm_doctor_archs.py"
    shutil.copy(MODULE, str(module))
    wheel = _wheel(tmp_path)
    out = run(wheel, "--release", "9.9.9", "--check", "--module", str(module))
    assert out.returncode == 1 and "differs" in out.stdout
    out = run(wheel, "--release", "9.9.9", "--module", str(module))
    assert out.returncode == 0 and "wrote 60 architectures of vLLM 9.9.9" in out.stdout, out.stderr
    text = module.read_text()
    assert 'RELEASE = "9.9.9"' in text and "Acme59ForCausalLM" in text and "LlamaForCausalLM" not in text
    # the code around the table is kept as it was
    assert text.split("# --- end of the written part ---")[1] == open(MODULE).read().split(
        "# --- end of the written part ---")[1]
    out = run(wheel, "--release", "9.9.9", "--check", "--module", str(module))
    assert out.returncode == 0 and "already holds" in out.stdout


def test_reads_a_registry_file_too(tmp_path):
    registry = tmp_path / "registry.py"
    registry.write_text(REGISTRY)
    module = tmp_path / "vllm_doctor_archs.py"
    shutil.copy(MODULE, str(module))
    assert run(str(registry), "--release", "9.9.9", "--module", str(module)).returncode == 0


def test_refuses_a_file_that_is_no_registry_and_a_bad_release(tmp_path):
    module = tmp_path / "vllm_doctor_archs.py"
    shutil.copy(MODULE, str(module))
    out = run(_wheel(tmp_path, "_TEXT_GENERATION_MODELS = {\n    \"OneForCausalLM\": (\"a\", \"b\"),\n}\n"),
              "--release", "9.9.9", "--module", str(module))
    assert out.returncode == 2 and "not a vLLM registry" in out.stderr
    out = run(_wheel(tmp_path), "--release", "latest", "--module", str(module))
    assert out.returncode == 2 and "--release" in out.stderr
    assert module.read_text() == open(MODULE).read()
