"""scripts/wslconfig against hostile files and sizes: exit 1 with the reason, nothing written."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "wslconfig")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, timeout=30)


def test_a_fifo_and_a_device_are_refused(tmp_path):
    fifo = str(tmp_path / ".wslconfig")
    os.mkfifo(fifo)
    out = run(fifo, "--memory", "16GB")  # the timeout fails the test if it blocks
    assert out.returncode == 1 and "is a FIFO; refused" in out.stderr
    out = run("/dev/zero", "--memory", "16GB")
    assert out.returncode == 1 and "character device; refused" in out.stderr


def test_a_linked_file_is_edited_in_place(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"[wsl2]\r\nmemory=8GB\r\n")
    link = tmp_path / ".wslconfig"
    link.symlink_to(real)
    out = run(str(link), "--memory", "16GB")
    assert out.returncode == 2, out.stderr
    assert link.is_symlink() and real.read_bytes() == b"[wsl2]\r\nmemory=16GB\r\n"
    assert (tmp_path / "real.vllm-backup").read_bytes() == b"[wsl2]\r\nmemory=8GB\r\n"


def test_sizes_outside_the_bounds_name_the_option(tmp_path):
    path = tmp_path / ".wslconfig"
    path.write_bytes(b"[wsl2]\nmemory=8GB\n")
    for args, message in ((["--memory", "1KB"], "--memory: '1KB' is below 1GB"),
                          (["--memory", "0"], "--memory: '0' is below 1GB"),
                          (["--swap", "100MB"], "--swap: '100MB' is below 1GB"),
                          (["--memory", "auto", "--ram", "3GB"], "--ram: '3GB' is below 5GB")):
        out = run(str(path), *args)
        assert out.returncode == 1 and message in out.stderr, (args, out.stderr)
    assert path.read_bytes() == b"[wsl2]\nmemory=8GB\n"
