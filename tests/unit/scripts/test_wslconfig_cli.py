"""scripts/wslconfig: diff, exit codes 0 (no change) / 2 (changed or would change) / 1 (error)."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "wslconfig")
SAMPLE = os.path.join(ROOT, "tests", "fixtures", "wslconfig", "16_indented_inline_comments_all_keys.wslconfig")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, timeout=60)


def copy(tmp_path, src=SAMPLE):
    dst = str(tmp_path / ".wslconfig")
    shutil.copy(src, dst)
    return dst


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def test_check_shows_the_diff_and_writes_nothing(tmp_path):
    path = copy(tmp_path)
    out = run(path, "--memory", "48GB", "--check")
    assert out.returncode == 2, out.stderr
    assert "-    memory = 32GB                 # half of the RAM" in out.stdout
    assert "+    memory = 48GB                 # half of the RAM" in out.stdout
    assert read(path) == read(SAMPLE)
    assert not os.path.exists(path + ".vllm-backup")


def test_change_then_no_change(tmp_path):
    path = copy(tmp_path)
    out = run(path, "--memory", "48GB", "--swap", "0", "--set", "wsl2.processors=8", "--set", "experimental.sparseVhd=true")
    assert out.returncode == 2, out.stderr
    assert read(path + ".vllm-backup") == read(SAMPLE)
    text = read(path).decode()
    assert "    memory = 48GB                 # half of the RAM\n" in text
    assert "    swap = 0                   # swap on disk\n" in text
    assert "    processors = 8               # every logical core\n" in text
    assert text.endswith("\n[experimental]\nsparseVhd=true\n")
    assert "wsl --shutdown" in out.stderr
    again = run(path, "--memory", "49152MB", "--swap", "0", "--set", "wsl2.processors=8",
                "--set", "experimental.sparseVhd=true")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "nothing to change" in again.stderr


def test_auto_uses_the_rule(tmp_path):
    path = copy(tmp_path, os.path.join(ROOT, "tests", "fixtures", "wslconfig", "13_short_unit_8G.wslconfig"))
    out = run(path, "--memory", "auto", "--swap", "auto", "--ram", "32GB", "--model-size", "15GB")
    assert out.returncode == 2, out.stderr
    assert read(path) == b"[wsl2]\nmemory=19GB\nswap=32GB\n"
    assert "need 19.0 GiB" in out.stderr


def test_errors_exit_1(tmp_path):
    path = copy(tmp_path)
    for args, message in (([path, "--memory", "lots"], "'lots' is not a size"),
                          ([path, "--set", "processors=8"], "SECTION.KEY=VALUE"),
                          ([path, "--memory", "auto"], "needs --ram"),
                          ([path, "--bogus"], "unrecognized arguments")):
        out = run(*args)
        assert out.returncode == 1, (args, out.stdout, out.stderr)
        assert message in out.stderr
    assert read(path) == read(SAMPLE)
    garbage = str(tmp_path / "bin")
    with open(garbage, "wb") as handle:
        handle.write(b"\xff\xff\xfe\x00\x81")
    out = run(garbage, "--swap", "0")
    assert out.returncode == 1 and "not UTF-8 or UTF-16" in out.stderr


def test_missing_file_is_created(tmp_path):
    path = str(tmp_path / "wsl.conf")
    out = run(path, "--set", "boot.systemd=true")
    assert out.returncode == 2 and read(path) == b"[boot]\nsystemd=true\n"
    assert not os.path.exists(path + ".vllm-backup")
