# -*- coding: utf-8 -*-
"""What the systemd unit of the server is confined to, and its ExecStart= quoted for systemd.

The unit template only prints what these functions return: the writable paths, how much of the
home directories the server sees, which devices it may open, and the command line, each element
escaped so that systemd hands the server exactly the argv the role computed.

Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type

# Unquoted, an element made only of these reaches the server as it is (after the "%" and "$"
# doubling): no whitespace, no quotes, no backslash, no ";" (a lone ";" separates commands).
_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./$-]+")
# A path systemd's path lists (ReadWritePaths=) take without quoting.
_LIST_PATH = re.compile(r"/[A-Za-z0-9._+@,=/-]*")
# What ProtectHome= hides: a path the server reads or writes below one of these needs
# ProtectHome=read-only (with ReadWritePaths= for the writable ones) instead of true.
HOME_DIRS = ("/home", "/root", "/run/user")
# NVIDIA's device groups in /proc/devices (nvidia-frontend for nvidia0..N and nvidiactl,
# nvidia-uvm, nvidia-caps, nvidia-nvlink, nvidia-nvswitch, ...): systemd matches the glob there.
NVIDIA_DEVICES = "char-nvidia* rw"
# WSL2: CUDA reaches the Windows driver through this one node.
WSL_GPU_DEVICE = "/dev/dxg rw"


def exec_quote(arg):
    """One argv element as systemd's ExecStart= reads it back exactly.

    systemd expands specifiers ("%") in the whole line, then splits it into words (double quotes
    group, C escapes such as \\\\ and \\" are undone), then substitutes "$NAME" at start: so "%"
    is written "%%" and "$" "$$" everywhere, and an element with anything but plain characters
    is double-quoted with "\\" and '"' escaped and control characters as \\xNN. NUL is refused
    (systemd cannot pass it).
    """
    if not isinstance(arg, str):
        raise ValueError("ExecStart element %r is not a string" % (arg,))
    if "\x00" in arg:
        raise ValueError("ExecStart element %r holds a NUL character" % (arg,))
    text = arg.replace("%", "%%").replace("$", "$$")
    if _PLAIN.fullmatch(text):
        return text
    out = []
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append("\\x%02x" % ord(char))
        else:
            out.append(char)
    return '"%s"' % "".join(out)


def exec_command_line(argv):
    """ExecStart='s value for ``argv`` (a list of strings; the first an absolute path)."""
    argv = list(argv or [])
    if not argv:
        raise ValueError("ExecStart needs a command")
    if not isinstance(argv[0], str) or not argv[0].startswith("/"):
        # a relative first word, or one starting with - @ : + !, would change its meaning
        raise ValueError("ExecStart's command %r is not an absolute path" % (argv[0],))
    return " ".join(exec_quote(arg) for arg in argv)


def _norm(path, what):
    if not isinstance(path, str) or not _LIST_PATH.fullmatch(path):
        raise ValueError("%s %r is not an absolute path of letters, digits and . _ + @ , = - /"
                         % (what, path))
    return path.rstrip("/") or "/"


def _under(path, parent):
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def sandbox(backend, is_wsl, writable, readable=()):
    """The unit's confinement for a server of ``backend`` ("cpu" or "cuda").

    ``writable``: the folders the server writes (its state directory with the caches, the log
    directory); ``readable``: what it only reads (model, venv, options), which only matters for
    ProtectHome=. Returns ``{read_write_paths, protect_home, private_devices, device_allow,
    syscall_allow_extra}``.
    """
    rw = []
    for path in writable or []:
        path = _norm(path, "a writable path")
        if path == "/":
            raise ValueError("a writable path of / would undo ProtectSystem=strict")
        if path not in rw:
            rw.append(path)
    # read paths are never written into the unit: any absolute path (a model folder with spaces)
    seen = rw + [p.rstrip("/") or "/" for p in (readable or []) if isinstance(p, str) and p.startswith("/")]
    in_home = any(_under(p, home) or _under(home, p) for p in seen for home in HOME_DIRS)
    gpu = backend == "cuda"
    devices = []
    if gpu:
        devices.append(NVIDIA_DEVICES)
        if is_wsl:
            devices.append(WSL_GPU_DEVICE)
    return {
        "read_write_paths": rw,
        # ProtectHome=true would make a model, venv or state directory under /home invisible
        "protect_home": "read-only" if in_home else "true",
        # a private /dev has no /dev/nvidia*: GPU units keep the host's /dev behind a device ACL
        "private_devices": not gpu,
        "device_allow": devices,
        # torch shares expandable CUDA segments between processes with pidfd_getfd (in @debug)
        "syscall_allow_extra": ["pidfd_getfd"] if gpu else [],
    }


def service_manager(requested, host):
    """What runs the server: ``requested`` (vllm_service_manager) unless it is ``auto``, then
    systemd where it is PID 1 (``host.init.systemd_booted``), else the launcher."""
    if requested != "auto":
        return requested
    return "systemd" if host["init"]["systemd_booted"] else "launcher"
