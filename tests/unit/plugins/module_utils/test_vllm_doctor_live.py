"""Unit tests for vllm_doctor_live with fake /proc trees and fake commands."""
import os

import vllm_doctor_live as L

TCP_HEADER = ("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
              "inode\n")


class Result(object):
    def __init__(self, stdout="", returncode=0):
        self.stdout = stdout
        self.returncode = returncode


def fake_runner(table):
    """A runner answering commands from {tuple(cmd) or cmd[0]: Result}; anything else fails."""
    calls = []

    def run(cmd):
        calls.append(list(cmd))
        for key in (tuple(cmd), cmd[0]):
            if key in table:
                value = table[key]
                if isinstance(value, Exception):
                    raise value
                return value
        return Result("", 1)

    run.calls = calls
    return run


def tcp_row(slot, port, inode, state="0A", addr="00000000"):
    return ("   %d: %s:%04X 00000000:0000 %s 00000000:00000000 00:00000000 00000000  1000        0 %s 1 "
            "0000000000000000 100 0 0 10 0\n" % (slot, addr, port, state, inode))


def make_proc(tmp_path, tcp="", tcp6="", pids=None):
    proc = tmp_path / "proc"
    (proc / "net").mkdir(parents=True)
    (proc / "net" / "tcp").write_text(TCP_HEADER + tcp)
    (proc / "net" / "tcp6").write_text(TCP_HEADER + tcp6)
    for pid, (comm, cmdline, inodes) in (pids or {}).items():
        base = proc / str(pid)
        (base / "fd").mkdir(parents=True)
        (base / "comm").write_text(comm + "\n")
        (base / "cmdline").write_bytes(b"\0".join(part.encode() for part in cmdline) + b"\0")
        for fd, inode in enumerate(inodes):
            os.symlink("socket:[%s]" % inode, str(base / "fd" / str(fd + 3)))
        os.symlink("/dev/null", str(base / "fd" / "0"))
    return str(tmp_path)


def test_port_holder_found_through_proc(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 8000, 4242) + tcp_row(1, 22, 17),
                     pids={1234: ("python3", ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000"],
                                  ["4242"]),
                           99: ("sshd", ["sshd"], ["17"])})
    holders = L.port_holders(8000, root=root, runner=fake_runner({}))
    assert holders == {8000: "pid 1234 (python3): python3 -m vllm.entrypoints.openai.api_server --port 8000"}


def test_ipv6_listener_and_established_sockets_ignored(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 8000, 555, state="01"),
                     tcp6=tcp_row(0, 8000, 777, addr="00000000000000000000000000000000"),
                     pids={10: ("nginx", ["nginx: master"], ["777"]), 11: ("curl", ["curl"], ["555"])})
    assert L.port_holders(8000, root=root) == {8000: "pid 10 (nginx): nginx: master"}


def test_free_port_gives_empty_dict(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 22, 17))
    assert L.port_holders(8000, root=root) == {}
    assert L.port_holders(None, root=root) == {}


def test_socket_of_invisible_process_falls_back_to_ss(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 8000, 4242))
    ss_out = 'LISTEN 0 128 0.0.0.0:8000 0.0.0.0:* users:(("docker-proxy",pid=321,fd=4))\n'
    runner = fake_runner({"ss": Result(ss_out)})
    holders = L.port_holders(8000, root=root, runner=runner)
    assert holders == {8000: "pid 321 (docker-proxy)"}
    assert runner.calls[0][:3] == ["ss", "-H", "-ltnp"]


def test_socket_of_invisible_process_without_ss(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 8000, 4242))
    holders = L.port_holders(8000, root=root, runner=fake_runner({}))
    assert "another user" in holders[8000] and "4242" in holders[8000]


def test_no_proc_uses_ss(tmp_path):
    ss_out = 'LISTEN 0 4096 *:8000 *:* users:(("python3",pid=55,fd=7))\n'
    holders = L.port_holders(8000, root=str(tmp_path), runner=fake_runner({"ss": Result(ss_out)}))
    assert holders == {8000: "pid 55 (python3)"}


def test_kernel_oom_lines_from_dmesg():
    dmesg = ("[  1.0] usb 1-1: new device\n"
             "[ 2448.6] oom-kill:constraint=CONSTRAINT_NONE,task=python3,pid=16014,uid=1000\n"
             "[ 2448.7] Out of memory: Killed process 16014 (python3) total-vm:3069420kB\n")
    runner = fake_runner({("dmesg", "-T"): Result(dmesg)})
    lines = L.kernel_oom_lines(root="/nonexistent", runner=runner)
    assert lines.splitlines() == dmesg.splitlines()[1:]


def test_kernel_oom_lines_fall_back_to_journal_when_dmesg_is_restricted():
    runner = fake_runner({
        ("dmesg", "-T"): Result("dmesg: read kernel buffer failed: Operation not permitted", 1),
        ("dmesg",): Result("", 1),
        "journalctl": Result("Jan 01 host kernel: Out of memory: Killed process 7 (VLLM::EngineCor)\n"),
    })
    assert "VLLM::EngineCor" in L.kernel_oom_lines(root="/nonexistent", runner=runner)
    assert runner.calls[2][0] == "journalctl"


def test_kernel_oom_lines_from_kern_log(tmp_path):
    (tmp_path / "var" / "log").mkdir(parents=True)
    (tmp_path / "var" / "log" / "kern.log").write_text("a\nkernel: python3 invoked oom-killer: gfp_mask=0x0\n")
    lines = L.kernel_oom_lines(root=str(tmp_path), runner=fake_runner({}))
    assert lines == "kernel: python3 invoked oom-killer: gfp_mask=0x0"


def test_kernel_oom_lines_degrade_to_empty(tmp_path):
    runner = fake_runner({"dmesg": OSError("no dmesg")})
    assert L.kernel_oom_lines(root=str(tmp_path), runner=runner) == ""


def test_gpu_free_mib_parses_csv_and_skips_unsupported(tmp_path):
    runner = fake_runner({"nvidia-smi": Result("22810\n[N/A]\n512\n")})
    assert L.gpu_free_mib(root=str(tmp_path), runner=runner) == [22810, 512]


def test_gpu_free_mib_tries_wsl_path(tmp_path):
    wsl = tmp_path / "usr" / "lib" / "wsl" / "lib"
    wsl.mkdir(parents=True)
    (wsl / "nvidia-smi").write_text("")
    smi = str(wsl / "nvidia-smi")
    runner = fake_runner({smi: Result("8000\n")})
    assert L.gpu_free_mib(root=str(tmp_path), runner=runner) == [8000]


def test_gpu_free_mib_without_nvidia_smi(tmp_path):
    assert L.gpu_free_mib(root=str(tmp_path), runner=fake_runner({"nvidia-smi": FileNotFoundError()})) == []


def test_gather_shapes_live_dict(tmp_path):
    root = make_proc(tmp_path, tcp=tcp_row(0, 8000, 1),
                     pids={5: ("python3", ["python3", "-m", "http.server"], ["1"])})
    runner = fake_runner({("dmesg", "-T"): Result(""), "nvidia-smi": Result("100\n")})
    live = L.gather(port=8000, root=root, runner=runner)
    assert live == {"dmesg": "", "port_holders": {8000: "pid 5 (python3): python3 -m http.server"},
                    "gpu_free_mib": [100], "port": 8000}


def test_gather_works_on_this_host_without_raising():
    live = L.gather(port=1)
    assert set(live) == {"dmesg", "port_holders", "gpu_free_mib", "port"}
