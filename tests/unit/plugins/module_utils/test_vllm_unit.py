"""ExecStart= quoting and the unit's confinement (vllm_unit). The quoting is checked against
systemd itself: systemd-analyze verify loads a unit and, at debug level, prints the argv it
parsed; that must be the argv we meant."""
import os
import shutil
import subprocess

import pytest

import vllm_unit as U

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (apt-get install systemd)")

AWKWARD = ["plain", "two words", "", "100%", "%n%%", "$HOME", "${HOME}", "$$", "a\"b", "a'b",
           "back\\slash", "\\", ";", "\\;", "tab\there", "new\nline", "x;y", "-", "@x", "é中",
           "--opt=a b", "'", '"']


@pytest.mark.parametrize("arg, quoted", [
    ("--config", "--config"), ("/etc/vllm/vllm.yaml", "/etc/vllm/vllm.yaml"),
    ("a b", '"a b"'), ("", '""'), ("50%", "50%%"), ("$HOME", "$$HOME"), ("a%b c", '"a%%b c"'),
    ('say "hi"', '"say \\"hi\\""'), ("c:\\x", '"c:\\\\x"'), (";", '";"'), ("a\nb", '"a\\x0ab"'),
])
def test_exec_quote(arg, quoted):
    assert U.exec_quote(arg) == quoted


@pytest.mark.parametrize("argv", [[], ["bin/vllm", "serve"], ["-/bin/vllm"], ["/bin/x", "a\x00b"],
                                  ["/bin/x", 3]])
def test_exec_command_line_refuses_what_systemd_cannot_carry(argv):
    with pytest.raises(ValueError):
        U.exec_command_line(argv)


_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def split_dump(line):
    r"""Words of systemd's "Command Line:" dump: bare, or double-quoted with backslash escapes
    (\\ \" \$ \` and C escapes such as \t, \n, \xNN)."""
    words, i = [], 0
    while i < len(line):
        if line[i] == " ":
            i += 1
            continue
        word = []
        if line[i] == '"':
            i += 1
            while line[i] != '"':
                if line[i] == "\\":
                    nxt = line[i + 1]
                    if nxt == "x":
                        word.append(chr(int(line[i + 2:i + 4], 16)))
                        i += 4
                        continue
                    word.append(_C_ESCAPES.get(nxt, nxt))
                    i += 2
                    continue
                word.append(line[i])
                i += 1
            i += 1
        else:
            while i < len(line) and line[i] != " ":
                word.append(line[i])
                i += 1
        words.append("".join(word))
    return words


def parsed_by_systemd(tmp_path, value):
    """The argv systemd parses from ExecStart=<value> (its unit dump, shell-quoted)."""
    unit = tmp_path / "quoting.service"
    unit.write_text("[Service]\nType=simple\nExecStart=%s\n" % value)
    env = dict(os.environ, SYSTEMD_LOG_LEVEL="debug", SYSTEMD_LOG_TARGET="console")
    proc = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                          universal_newlines=True)
    lines = [line.split("Command Line:", 1)[1].strip() for line in proc.stdout.splitlines()
             if "Command Line:" in line]
    assert len(lines) == 1, proc.stdout[-3000:]
    return split_dump(lines[0])


@needs_systemd_analyze
def test_systemd_reads_back_every_awkward_argument(tmp_path):
    argv = ["/bin/echo"] + AWKWARD
    got = parsed_by_systemd(tmp_path, U.exec_command_line(argv))
    # "$" stays doubled in the parsed unit; systemd turns "$$" into "$" when it starts the command
    assert got == [arg.replace("$", "$$") for arg in argv]


@needs_systemd_analyze
def test_the_check_is_not_blind_unquoted_arguments_come_back_wrong(tmp_path):
    argv = ["/bin/echo", "two words", "%n"]
    assert parsed_by_systemd(tmp_path, " ".join(argv)) == ["/bin/echo", "two", "words", "quoting.service"]
    assert parsed_by_systemd(tmp_path, U.exec_command_line(argv)) == argv


def test_sandbox_cpu_host():
    box = U.sandbox("cpu", False, ["/var/lib/vllm", "/var/log/vllm/", "/var/lib/vllm"],
                    ["/var/lib/vllm/models/x", "/opt/vllm", "/etc/vllm"])
    assert box == {"read_write_paths": ["/var/lib/vllm", "/var/log/vllm"], "protect_home": "true",
                   "private_devices": True, "device_allow": [], "syscall_allow_extra": []}


@pytest.mark.parametrize("wsl, devices", [(False, ["char-nvidia* rw"]),
                                          (True, ["char-nvidia* rw", "/dev/dxg rw"])])
def test_sandbox_gpu_host_keeps_the_nvidia_nodes(wsl, devices):
    box = U.sandbox("cuda", wsl, ["/var/lib/vllm", "/var/log/vllm"])
    assert box["private_devices"] is False and box["device_allow"] == devices
    assert box["syscall_allow_extra"] == ["pidfd_getfd"]


@pytest.mark.parametrize("writable, readable", [
    (["/var/lib/vllm"], ["/home/alice/models/qwen"]),   # a model served where it is
    (["/root/vllm"], []),                               # a state directory in root's home
    (["/var/lib/vllm"], ["/run/user/1000/venv"]),
    (["/var/lib/vllm"], ["/"]),
])
def test_sandbox_keeps_home_readable_when_the_server_needs_it(writable, readable):
    assert U.sandbox("cpu", False, writable, readable)["protect_home"] == "read-only"


def test_sandbox_takes_any_model_folder_it_only_reads():
    box = U.sandbox("cpu", False, ["/var/lib/vllm"], ["/srv/My Model (v2)", "/home/a b/m", "", None])
    assert box["read_write_paths"] == ["/var/lib/vllm"] and box["protect_home"] == "read-only"


def test_sandbox_home_lookalikes_stay_hidden():
    assert U.sandbox("cpu", False, ["/homes/x", "/var/root"], ["/srv/home"])["protect_home"] == "true"


@pytest.mark.parametrize("writable", [["/"], ["var/lib/vllm"], ["/var/lib/my vllm"], [None]])
def test_sandbox_refuses_writable_paths_the_unit_cannot_hold(writable):
    with pytest.raises(ValueError):
        U.sandbox("cpu", False, writable)
