"""scripts/lib/failure_digest.py: the few lines at the end of scripts/test that say why a stage failed."""
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "lib", "failure_digest.py")
SPEC = importlib.util.spec_from_file_location("failure_digest", SCRIPT)
failure_digest = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(failure_digest)

ESC = "\x1b"
# What a failed Molecule converge prints (colours and the nested-output frame as Molecule draws them)
MOLECULE_LOG = [
    ESC + "[36mINFO    " + ESC + "[0m fleet \u279c converge: Executing",
    "  " + ESC + "[2m\u2502" + ESC + "[0m TASK [vllm_install : Install exactly the locked packages]",
    "  " + ESC + "[2m\u2502" + ESC + "[0m   ****",
    "  " + ESC + "[2m\u2502" + ESC + "[0m " + ESC + "[0;31mfatal: [fleet-1]: FAILED! => " + ESC + "[0m",
    "  \u2502 ok: [fleet-2]",
    "  \u2502 " + ESC + "[0;31mfatal: [fleet-2]: FAILED! => " + ESC + "[0m",
    "  \u2502     changed: false",
    "  \u2502     msg: 'error: No space left on device (os error 28)'",
    "  \u2502 ",
    "  \u2502 PLAY RECAP",
    "  \u2502 fleet-1 : ok=20 changed=3 unreachable=0 failed=1",
    ESC + "[36mINFO    " + ESC + "[0m fleet \u279c converge: " + ESC + "[31mExecuted: Failed" + ESC + "[0m (rc 2)",
    "  \u2502 " + ESC + "[0;31mfatal: [localhost]: FAILED! => an unrelated later one" + ESC + "[0m",
]


def test_molecule_failure_is_the_last_fatal_before_the_failed_action():
    lines = failure_digest.digest(MOLECULE_LOG, limit=6)
    assert lines == [
        "fatal: [fleet-2]: FAILED! =>",
        "changed: false",
        "msg: 'error: No space left on device (os error 28)'",
        "INFO fleet \u279c converge: Executed: Failed (rc 2)",
    ]
    assert all(ESC not in line and "\u2502" not in line for line in lines)


def test_pytest_failures_are_its_summary_lines():
    log = ["....F..", "=== short test summary info ===",
           "FAILED tests/unit/test_a.py::test_one - AssertionError: 1 != 2",
           "ERROR tests/integration/test_b.py::test_two - TimeoutError",
           "FAILED - RETRYING: [localhost]: Wait for instance(s) creation to complete",
           "2 failed, 10 passed in 3.2s"]
    assert failure_digest.digest(log) == [
        "FAILED tests/unit/test_a.py::test_one - AssertionError: 1 != 2",
        "ERROR tests/integration/test_b.py::test_two - TimeoutError"]


def test_anything_else_ends_with_its_last_lines():
    assert failure_digest.digest(["a", "", "b", "c", ""], limit=2) == ["b", "c"]


def test_the_command_shortens_lines_and_survives_a_missing_log(tmp_path):
    log = tmp_path / "stage.log"
    log.write_text("x" * 400 + "\n")
    out = subprocess.run([sys.executable, SCRIPT, "--width", "50", "lint", str(log)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    assert out.stdout.splitlines() == ["lint:", "  " + "x" * 47 + "..."]
    out = subprocess.run([sys.executable, SCRIPT, "lint", str(tmp_path / "none.log")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "log not readable" in out.stdout
