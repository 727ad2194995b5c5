# -*- coding: utf-8 -*-
"""Gather the facts a vLLM log cannot show, on a live Linux host (standard library only).

``gather(port=...)`` returns the ``live`` dict that ``vllm_doctor.diagnose`` accepts:

- ``dmesg``: the kernel's OOM-killer lines (``dmesg``, else ``journalctl -k``, else
  ``/var/log/kern.log``); empty when none is readable (``dmesg_restrict`` without root).
- ``port_holders``: ``{port: "pid 123 (python3): python3 -m vllm ..."}`` for listening TCP
  sockets on the port, from ``/proc/net/tcp{,6}`` and ``/proc/<pid>/fd``, else ``ss -ltnp``.
- ``gpu_free_mib``: free memory per GPU from ``nvidia-smi`` (also ``/usr/lib/wsl/lib`` on WSL).
- ``port``: the port that was checked.

Every helper takes ``root`` (a directory standing in for ``/``) and ``runner`` (a callable like
``subprocess.run`` returning an object with ``returncode`` and ``stdout``) so the unit tests can
use fake /proc trees and fake commands. Each one degrades to an empty answer, never raises.
"""
from __future__ import absolute_import, division, print_function

import os
import re
import subprocess

__metaclass__ = type

_OOM_LINE_RE = re.compile(r"Out of memory: Kill(?:ed)? process|invoked oom-killer|oom-kill:|oom_reaper|"
                          r"Memory cgroup out of memory|Killed process \d+", re.I)
_TCP_LISTEN = "0A"


def _default_runner(cmd, timeout=10):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              universal_newlines=True)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _run(runner, cmd):
    runner = runner or _default_runner
    try:
        result = runner(cmd)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    if result is None or getattr(result, "returncode", 1) != 0:
        return None
    out = getattr(result, "stdout", "") or ""
    if isinstance(out, bytes):
        out = out.decode("utf-8", "replace")
    return out


def _path(root, *parts):
    return os.path.join(root or "/", *[p.lstrip("/") for p in parts])


def kernel_oom_lines(root="/", runner=None, limit=50):
    """The kernel's OOM-killer lines, newest last; "" when no source is readable."""
    sources = [
        ["dmesg", "-T"],
        ["dmesg"],
        ["journalctl", "-k", "--no-pager", "-q", "-n", "20000"],
    ]
    for cmd in sources:
        out = _run(runner, cmd)
        if out is None:
            continue
        lines = [line for line in out.splitlines() if _OOM_LINE_RE.search(line)]
        return "\n".join(lines[-limit:])
    for name in ("var/log/kern.log", "var/log/messages", "var/log/syslog"):
        path = _path(root, name)
        try:
            with open(path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 4 * 1024 * 1024))
                text = handle.read().decode("utf-8", "replace")
        except (IOError, OSError):
            continue
        lines = [line for line in text.splitlines() if _OOM_LINE_RE.search(line)]
        return "\n".join(lines[-limit:])
    return ""


def _listening_inodes(root, port):
    """Socket inodes listening on TCP ``port`` (IPv4 and IPv6)."""
    inodes = set()
    for name in ("proc/net/tcp", "proc/net/tcp6"):
        try:
            with open(_path(root, name)) as handle:
                rows = handle.read().splitlines()[1:]
        except (IOError, OSError):
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 10:
                continue
            local, state, inode = fields[1], fields[3], fields[9]
            try:
                local_port = int(local.rsplit(":", 1)[1], 16)
            except (IndexError, ValueError):
                continue
            if local_port == int(port) and state == _TCP_LISTEN and inode != "0":
                inodes.add(inode)
    return inodes


def _describe_pid(root, pid):
    comm = ""
    cmdline = ""
    try:
        with open(_path(root, "proc", str(pid), "comm")) as handle:
            comm = handle.read().strip()
    except (IOError, OSError):
        pass
    try:
        with open(_path(root, "proc", str(pid), "cmdline"), "rb") as handle:
            cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except (IOError, OSError):
        pass
    text = "pid %s" % pid
    if comm:
        text += " (%s)" % comm
    if cmdline:
        text += ": %s" % cmdline[:300]
    return text


def _pids_for_inodes(root, inodes):
    found = []
    proc = _path(root, "proc")
    try:
        entries = os.listdir(proc)
    except OSError:
        return found
    wanted = set("socket:[%s]" % inode for inode in inodes)
    for entry in sorted(entries, key=lambda e: int(e) if e.isdigit() else 0):
        if not entry.isdigit():
            continue
        fd_dir = os.path.join(proc, entry, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target in wanted:
                found.append(int(entry))
                break
    return found


_SS_USERS_RE = re.compile(r'\("([^"]*)",pid=(\d+),fd=\d+\)')


def _ss_holders(port, runner):
    out = _run(runner, ["ss", "-H", "-ltnp", "sport = :%d" % int(port)])
    if out is None:
        out = _run(runner, ["ss", "-ltnp"])
        if out is None:
            return []
        out = "\n".join(line for line in out.splitlines() if re.search(r":%d\s" % int(port), line))
    holders = []
    for name, pid in _SS_USERS_RE.findall(out):
        holders.append((int(pid), name))
    if not holders and out.strip():
        holders.append((None, "a process (run ss -ltnp as root to see which)"))
    return holders


def _describe_ss(root, holders):
    out = []
    for pid, name in holders:
        if pid is None:
            out.append(name)
            continue
        text = _describe_pid(root, pid)
        if text == "pid %s" % pid and name:
            text += " (%s)" % name
        out.append(text)
    return out


def port_holders(port, root="/", runner=None):
    """{port: description} of who listens on TCP ``port``; {} when free or unknown."""
    if port is None:
        return {}
    port = int(port)
    inodes = _listening_inodes(root, port)
    descriptions = []
    if inodes:
        pids = _pids_for_inodes(root, inodes)
        descriptions = [_describe_pid(root, pid) for pid in pids]
        if not descriptions:
            # Sockets of other users' processes are invisible without root; ss may know more.
            descriptions = _describe_ss(root, _ss_holders(port, runner))
            if not descriptions:
                descriptions = ["a process of another user (socket inode %s)" % ", ".join(sorted(inodes))]
    elif not os.path.exists(_path(root, "proc/net/tcp")):
        descriptions = _describe_ss(root, _ss_holders(port, runner))
    if not descriptions:
        return {}
    return {port: "; ".join(descriptions)}


def gpu_free_mib(root="/", runner=None):
    """Free memory per GPU in MiB from nvidia-smi; [] without a usable nvidia-smi."""
    query = ["--query-gpu=memory.free", "--format=csv,noheader,nounits"]
    candidates = ["nvidia-smi"]
    wsl_smi = _path(root, "usr/lib/wsl/lib/nvidia-smi")
    if os.path.exists(wsl_smi):
        candidates.append(wsl_smi)
    for binary in candidates:
        out = _run(runner, [binary] + query)
        if out is None:
            continue
        values = []
        for line in out.splitlines():
            line = line.strip()
            if re.match(r"^\d+(?:\.\d+)?$", line):
                values.append(int(float(line)))
        return values
    return []


def gather(port=None, root="/", runner=None):
    """All live facts for ``vllm_doctor.diagnose(log, live=...)``."""
    live = {
        "dmesg": kernel_oom_lines(root=root, runner=runner),
        "port_holders": port_holders(port, root=root, runner=runner) if port else {},
        "gpu_free_mib": gpu_free_mib(root=root, runner=runner),
    }
    if port:
        live["port"] = int(port)
    return live
