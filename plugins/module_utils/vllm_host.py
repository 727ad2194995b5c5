# -*- coding: utf-8 -*-
"""Host facts for the vLLM provisioner: OS, WSL, init system, CPUs, RAM, free space.

Pure standard library, no Ansible imports: the same file is used by the ``vllm_host_facts``
module on a target (as ``ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_host``),
by scripts and by unit tests.
Every reader takes a ``root`` so tests can point it at a fake ``/proc`` and ``/etc`` tree.
"""
from __future__ import absolute_import, division, print_function

import os
import re

__metaclass__ = type

WSL_LIB_DIR = "/usr/lib/wsl/lib"
NVIDIA_SMI_CANDIDATES = ("/usr/bin/nvidia-smi", "/usr/local/bin/nvidia-smi",
                         WSL_LIB_DIR + "/nvidia-smi")


def _read(root, path, default=None):
    try:
        with open(os.path.join(root, path.lstrip("/")), "r") as handle:
            return handle.read()
    except (IOError, OSError):
        return default


def _exists(root, path):
    return os.path.exists(os.path.join(root, path.lstrip("/")))


def parse_os_release(text):
    """Parse /etc/os-release into a dict (quotes removed)."""
    result = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        result[key.strip()] = value
    return result


def _pid1_env(root):
    """PID 1's environment (readable by root), as a dict."""
    try:
        with open(os.path.join(root, "proc/1/environ"), "rb") as handle:
            raw = handle.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return {}
    return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)


def detect_wsl(kernel_release, root="/", environ=None):
    """Return ``{"is_wsl": bool, "version": 1|2|None, "distro": str|None, "evidence": [..]}``.

    WSL2 kernels carry ``microsoft-standard-WSL2`` (or ``-microsoft-standard``); WSL1 reports a
    ``-Microsoft`` release (capital M) and has no GPU support. The interop file and the
    ``WSL_DISTRO_NAME`` variable back the kernel string up; ``/usr/lib/wsl/lib`` holds the
    Windows driver's ``libcuda.so`` and ``nvidia-smi``.
    """
    environ = os.environ if environ is None else environ
    release = kernel_release or ""
    evidence = []
    version = None
    if re.search(r"microsoft-standard-wsl2|microsoft-standard", release, re.I):
        evidence.append("kernel release %s" % release)
        version = 2
    elif "Microsoft" in release:
        evidence.append("kernel release %s (WSL1)" % release)
        version = 1
    if _exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop") or \
            _exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop-late"):
        evidence.append("WSL interop registered")
    # sudo (become) drops WSL_DISTRO_NAME from the module's environment: PID 1 still has it
    distro = environ.get("WSL_DISTRO_NAME") or _pid1_env(root).get("WSL_DISTRO_NAME")
    if distro:
        evidence.append("WSL_DISTRO_NAME=%s" % distro)
    if _exists(root, WSL_LIB_DIR):
        evidence.append("%s present" % WSL_LIB_DIR)
    for path in ("/run/WSL", "/mnt/wsl"):  # WSL2's init makes both
        if os.path.isdir(os.path.join(root, path.lstrip("/"))):
            evidence.append("%s present" % path)
    is_wsl = version is not None or len(evidence) >= 2
    if is_wsl and version is None:
        version = 2
    return {
        "is_wsl": is_wsl,
        "version": version if is_wsl else None,
        "distro": distro if is_wsl else None,
        "interop": _exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop")
        or _exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop-late"),
        "lib_dir": WSL_LIB_DIR if _exists(root, WSL_LIB_DIR) else None,
        "evidence": evidence,
    }


def detect_init(root="/"):
    """What runs as PID 1 and whether systemd is booted (the test systemd itself uses)."""
    comm = (_read(root, "/proc/1/comm", "") or "").strip()
    booted = _exists(root, "/run/systemd/system")
    return {"pid1": comm or None, "systemd_booted": bool(booted and comm in ("systemd", "init"))}


def parse_meminfo(text):
    """MemTotal/MemAvailable/SwapTotal in MiB from /proc/meminfo."""
    values = {}
    for line in (text or "").splitlines():
        match = re.match(r"^(\w+):\s+(\d+)\s*kB", line)
        if match:
            values[match.group(1)] = int(match.group(2)) // 1024
    return {
        "total_mib": values.get("MemTotal"),
        "available_mib": values.get("MemAvailable"),
        "swap_total_mib": values.get("SwapTotal"),
    }


def nearest_existing(path):
    """The path itself or its nearest existing parent (where a new directory would land)."""
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def mount_for(path, mounts_text):
    """The mount entry (mountpoint, fstype, source) that holds ``path``, from /proc/mounts text."""
    best = None
    for line in (mounts_text or "").splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        source, mountpoint, fstype = parts[0], parts[1].replace("\\040", " "), parts[2]
        prefix = mountpoint.rstrip("/") + "/"
        if path == mountpoint or path.startswith(prefix) or mountpoint == "/":
            if best is None or len(mountpoint) > len(best["mountpoint"]):
                best = {"mountpoint": mountpoint, "fstype": fstype, "source": source}
    return best


def space_for(path, mounts_text=None):
    """Free and total MiB on the filesystem where ``path`` lives (or would be created)."""
    existing = nearest_existing(path)
    stat = os.statvfs(existing)
    result = {
        "path": path,
        "checked": existing,
        "free_mib": stat.f_bavail * stat.f_frsize // (1024 * 1024),
        "total_mib": stat.f_blocks * stat.f_frsize // (1024 * 1024),
    }
    mount = mount_for(os.path.realpath(existing), mounts_text)
    if mount:
        result.update({"fstype": mount["fstype"], "mountpoint": mount["mountpoint"]})
    return result


def find_nvidia_smi(root="/", path_env=None):
    """nvidia-smi on PATH, or in the usual places (under WSL it sits in /usr/lib/wsl/lib)."""
    path_env = os.environ.get("PATH", "") if path_env is None else path_env
    for directory in path_env.split(os.pathsep):
        if directory and os.access(os.path.join(root, directory.lstrip("/"), "nvidia-smi"), os.X_OK):
            return os.path.join(directory, "nvidia-smi")
    for candidate in NVIDIA_SMI_CANDIDATES:
        if os.access(os.path.join(root, candidate.lstrip("/")), os.X_OK):
            return candidate
    return None


def python_version_of(text):
    """'Python 3.11.2' -> '3.11'."""
    match = re.search(r"(\d+)\.(\d+)", text or "")
    return "%s.%s" % (match.group(1), match.group(2)) if match else None


# Printed by a candidate interpreter: "X.Y <sys.executable>" (a pyenv shim resolves to the real one).
PY_PROBE = "import sys; print('%d.%d' % sys.version_info[:2], sys.executable)"


def world_accessible(path):
    """True when any user can execute ``path``: o+x on the file and on every directory above it."""
    path = os.path.realpath(path)
    try:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        while True:
            if not os.stat(parent).st_mode & 0o001:
                return False
            if parent == os.path.dirname(parent):
                return True
            parent = os.path.dirname(parent)
    except OSError:
        return False
