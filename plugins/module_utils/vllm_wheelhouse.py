# -*- coding: utf-8 -*-
"""A wheelhouse for a fleet: download each release's locked wheels once, install from there.

Each host locks its requirement set with ``uv pip compile`` (``<release_dir>/requirements.lock``).
Hosts whose venv differs from their lock need the lock's wheels. This module groups those hosts
by lock file (sha256 of its text) and by the wheel tags their interpreter accepts, and builds the
``pip download`` arguments that fetch exactly those wheels for a target that is not the machine
running pip (``--platform``/``--python-version``/``--implementation``/``--abi``, which pip only
allows with ``--only-binary=:all:`` and ``--no-deps``).

pip does not widen ``--platform manylinux_2_36_x86_64`` to the older manylinux levels the target
also accepts (it only does that for the legacy ``manylinux2014``/``manylinux2010`` spellings), so
the platform list is computed here the way ``packaging.tags`` does for a running interpreter.
Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import hashlib
import re

__metaclass__ = type

WHEELHOUSE_OFF = "none"
WHEELHOUSE_CONTROLLER = "controller"

# manylinux_2_<minor> levels exist from glibc 2.5 (manylinux1) on x86; other architectures got
# their first manylinux wheels with manylinux2014 (glibc 2.17).
_FIRST_GLIBC_MINOR = {"x86_64": 5, "i686": 5}
_DEFAULT_FIRST_GLIBC_MINOR = 17
_LEGACY_MANYLINUX = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
_LEGACY_ARCHES = {
    "manylinux2014": ("x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"),
    "manylinux2010": ("x86_64", "i686"),
    "manylinux1": ("x86_64", "i686"),
}
_VERSION = re.compile(r"^(\d+)\.(\d+)")
_IMPLEMENTATIONS = {"cpython": "cp", "pypy": "pp"}


class WheelhouseError(ValueError):
    """A target whose wheel tags cannot be worked out."""


def lock_sha256(text):
    """sha256 of a lock file's text (what ``sha256sum requirements.lock`` prints)."""
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


def _arch(machine):
    machine = (machine or "").strip().lower()
    return {"amd64": "x86_64", "arm64": "aarch64", "i386": "i686", "i586": "i686"}.get(machine, machine)


def platform_tags(machine, libc, libc_version):
    """Platform tags a Linux interpreter accepts, newest first.

    ``libc``/``libc_version``: what ``platform.libc_ver()`` returns on the target
    (``("glibc", "2.36")``). musl or an unknown libc accepts only ``linux_<arch>`` wheels here.
    """
    arch = _arch(machine)
    if not arch:
        raise WheelhouseError("the target's machine architecture is empty")
    tags = []
    match = _VERSION.match(libc_version or "")
    if (libc or "").lower() == "glibc" and match and match.group(1) == "2":
        minor = int(match.group(2))
        first = _FIRST_GLIBC_MINOR.get(arch, _DEFAULT_FIRST_GLIBC_MINOR)
        for level in range(minor, first - 1, -1):
            tags.append("manylinux_2_%d_%s" % (level, arch))
            legacy = _LEGACY_MANYLINUX.get(level)
            if legacy and arch in _LEGACY_ARCHES[legacy]:
                tags.append("%s_%s" % (legacy, arch))
    tags.append("linux_%s" % arch)
    return tags


def target_tags(target):
    """``{"implementation", "python_version", "abi", "platforms"}`` for pip from the facts that
    ``files/wheel_target.py`` prints on the host.

    ``target``: ``{"implementation": "cpython", "version": [3, 11], "debug": false,
    "free_threaded": false, "machine": "x86_64", "libc": ["glibc", "2.36"]}``.
    """
    if not isinstance(target, dict):
        raise WheelhouseError("the target facts are %r; expected a mapping" % (target,))
    name = str(target.get("implementation") or "").lower()
    impl = _IMPLEMENTATIONS.get(name)
    if impl is None:
        raise WheelhouseError("the target's Python implementation is %r; a wheelhouse can be "
                              "built for: %s" % (name, ", ".join(sorted(_IMPLEMENTATIONS))))
    version = target.get("version") or []
    if len(version) < 2:
        raise WheelhouseError("the target's Python version is %r; expected [major, minor]"
                              % (version,))
    major, minor = int(version[0]), int(version[1])
    nodot = "%d%d" % (major, minor)
    if impl == "cp":
        abi = "cp" + nodot + ("d" if target.get("debug") else "") + \
            ("t" if target.get("free_threaded") else "")
    else:
        abi = "pypy%s_pp%s" % (nodot, target.get("pypy_abi") or "73")
    machine = _arch(target.get("machine"))
    if target.get("bits") == 32:  # a 32-bit userland on a 64-bit kernel
        machine = {"x86_64": "i686", "aarch64": "armv7l"}.get(machine, machine)
    libc = target.get("libc") or ["", ""]
    return {
        "implementation": impl,
        "python_version": "%d.%d" % (major, minor),
        "abi": abi,
        "platforms": platform_tags(machine, libc[0], libc[1] if len(libc) > 1 else ""),
    }


def pip_download_args(tags):
    """The target part of ``pip download``: exactly the locked files, binary, for that target."""
    args = ["--no-deps", "--only-binary=:all:",
            "--implementation", tags["implementation"],
            "--python-version", tags["python_version"],
            "--abi", tags["abi"]]
    for platform in tags["platforms"]:
        args.extend(["--platform", platform])
    return args


def pip_source_args(index_url="", extra_index_urls=(), find_links=()):
    """The install's package sources as pip options (uv's ``--index-strategy`` has no pip twin:
    pip already takes the best match from all indexes)."""
    args = ["--index-url", index_url] if index_url else []
    args.extend("--extra-index-url=" + url for url in extra_index_urls or ())
    args.extend("--find-links=" + link for link in find_links or ())
    return args


def download_jobs(hosts):
    """Group the hosts that need wheels: one ``pip download`` per lock file and wheel target.

    ``hosts``: ``[{"host": name, "lock": lock text, "target": wheel_target.py facts,
    "sources": pip source options (optional)}, ...]``.
    Returns ``[{"sha256", "lock", "tags", "sources", "pip_args", "hosts"}, ...]`` sorted by
    sha256, target and sources, hosts sorted; a lock shared by hosts with different Pythons or
    package sources yields one job each (same sha256, so they fill the same folder). Raises :class:`WheelhouseError` naming the host
    whose facts are unusable.
    """
    jobs = {}
    for entry in hosts or ():
        name = entry.get("host")
        try:
            tags = target_tags(entry.get("target"))
        except WheelhouseError as err:
            raise WheelhouseError("%s: %s" % (name, err))
        lock = entry.get("lock") or ""
        if not lock.strip():
            raise WheelhouseError("%s: the lock file is empty" % name)
        sha = lock_sha256(lock)
        sources = [str(arg) for arg in entry.get("sources") or ()]
        key = (sha, tags["implementation"], tags["python_version"], tags["abi"],
               tuple(tags["platforms"]), tuple(sources))
        job = jobs.setdefault(key, {"sha256": sha, "lock": lock, "tags": tags, "sources": sources,
                                    "pip_args": pip_download_args(tags) + sources, "hosts": []})
        job["hosts"].append(name)
    result = []
    for key in sorted(jobs):
        job = jobs[key]
        job["hosts"] = sorted(job["hosts"])
        result.append(job)
    return result


def check_wheelhouse(name, value, inventory_hosts=None):
    """``none``, ``controller`` or the inventory name of a mirror host."""
    accepted = "'none' (each host downloads), 'controller', or the inventory name of a mirror host"
    if not isinstance(value, str) or not value.strip():
        return ["%s is %r; accepted: %s" % (name, value, accepted)]
    if value in (WHEELHOUSE_OFF, WHEELHOUSE_CONTROLLER):
        return []
    if inventory_hosts is not None and value not in inventory_hosts:
        return ["%s is %r, which is not a host of the inventory; accepted: %s"
                % (name, value, accepted)]
    return []


def check_url(name, value):
    if not isinstance(value, str) or not re.match(r"^https?://[^\s/]+", value):
        return ["%s is %r; accepted: the http(s) URL where the mirror host serves "
                "vllm_install_wheelhouse_dir (e.g. http://mirror.example.internal/wheelhouse)"
                % (name, value)]
    return []


def validate(values, inventory_hosts=None):
    """Errors in the wheelhouse variables (empty when all is well). ``values`` maps names to
    values; only those present are checked. ``inventory_hosts``: the inventory's host names
    (a mirror host must be one of them); None skips that check."""
    errors = []
    mode = values.get("vllm_install_wheelhouse", WHEELHOUSE_OFF)
    mode_errors = check_wheelhouse("vllm_install_wheelhouse", mode, inventory_hosts) \
        if "vllm_install_wheelhouse" in values else []
    errors.extend(mode_errors)
    for key in ("vllm_install_wheelhouse_dir", "vllm_install_wheelhouse_python"):
        value = values.get(key)
        if value and (not isinstance(value, str) or not value.startswith("/")):
            errors.append("%s is %r; accepted: an absolute path, or '' for the default"
                          % (key, value))
    if "vllm_install_wheelhouse_host_dir" in values:
        value = values["vllm_install_wheelhouse_host_dir"]
        if not isinstance(value, str) or not value.startswith("/") or value.rstrip("/") == "":
            errors.append("vllm_install_wheelhouse_host_dir is %r; accepted: an absolute path "
                          "below / (a folder for the wheels on each host)" % (value,))
    if not mode_errors and mode not in (WHEELHOUSE_OFF, WHEELHOUSE_CONTROLLER):
        errors.extend(check_url("vllm_install_wheelhouse_url", values.get("vllm_install_wheelhouse_url")))
    return errors
