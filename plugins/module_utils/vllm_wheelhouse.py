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
import json
import os
import re
import tarfile

from .vllm_common import atomic_write, json_text

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


LOCK_NAME = "requirements.lock"
_PIP_FILE_LINE = re.compile(r"^\s*(Saved|File was already downloaded)\s+(\S.*?)\s*$", re.M)


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


# -- the download's record and the archive hosts receive ------------------------------------------
# A finished ``pip download`` leaves a marker beside the wheels (``.complete-<key>.json``: the lock's
# sha256, the pip arguments and every file it resolved with its size). The next run of the same job
# (a later batch, a retry, the next rollout of the same release) finds the marker and its files
# unchanged and skips pip, which would otherwise resolve all ~150 files again. The job's files are
# also packed into one uncompressed tar (wheels are compressed already): a host receives the wheels
# as one transfer instead of one round trip per file.

def job_key(pip_args):
    """A short stable name for one job's target and sources (its pip arguments)."""
    text = json.dumps([str(arg) for arg in pip_args or ()])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def marker_path(folder, key):
    return os.path.join(folder, ".complete-%s.json" % key)


def pip_files(output):
    """``(saved, all)``: basenames of the files ``pip download`` saved now, and of every file it
    resolved (saved now or found already downloaded), in the order printed."""
    saved, every = [], []
    for verb, path in _PIP_FILE_LINE.findall(output or ""):
        name = os.path.basename(path)
        if name not in every:
            every.append(name)
        if verb == "Saved" and name not in saved:
            saved.append(name)
    return saved, every


def manifest(folder, names):
    """``{name: size}`` of the named files in ``folder``; raises :class:`WheelhouseError` naming
    a file that is not there."""
    result = {}
    for name in names:
        path = os.path.join(folder, name)
        try:
            result[name] = os.path.getsize(path)
        except OSError:
            raise WheelhouseError("%s: pip reported it, but it is not in %s" % (name, folder))
    return result


def manifest_sha256(files):
    text = "".join("%s %d\n" % (name, files[name]) for name in sorted(files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_marker(folder, key, lock_sha, pip_args):
    """The job's recorded files when its marker matches this lock and these arguments and every
    file is still there with its recorded size; else None (the download must run)."""
    try:
        with open(marker_path(folder, key), encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("lock_sha256") != lock_sha \
            or record.get("pip_args") != [str(arg) for arg in pip_args or ()]:
        return None
    files = record.get("files")
    if not isinstance(files, dict) or not files:
        return None
    for name, size in files.items():
        try:
            if os.path.getsize(os.path.join(folder, name)) != size:
                return None
        except OSError:
            return None
    return files


def write_marker(folder, key, lock_sha, pip_args, files):
    record = {"lock_sha256": lock_sha, "pip_args": [str(arg) for arg in pip_args or ()],
              "files": dict(sorted(files.items()))}
    atomic_write(marker_path(folder, key), json_text(record, indent=1), chmod=0o644)


def archive_name(key, files):
    return "wheels-%s-%s.tar" % (key, manifest_sha256(files)[:12])


def write_archive(folder, key, files):
    """Pack the job's files into ``<folder>/wheels-<key>-<manifest>.tar`` (once: an archive of the
    same files is reused) and remove this job's older archives. Returns ``(path, created)``.
    Members are plain files owned by root, mode 0644, at the archive's top level."""
    name = archive_name(key, files)
    path = os.path.join(folder, name)
    created = False
    if not os.path.isfile(path):
        tmp = "%s.tmp-%d" % (path, os.getpid())
        try:
            with tarfile.open(tmp, "w", format=tarfile.GNU_FORMAT) as tar:
                for member in sorted(files):
                    info = tar.gettarinfo(os.path.join(folder, member), arcname=member)
                    info.uid = info.gid = 0
                    info.uname = info.gname = "root"
                    info.mode = 0o644
                    with open(os.path.join(folder, member), "rb") as handle:
                        tar.addfile(info, handle)
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            os.rename(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        created = True
    prefix = "wheels-%s-" % key
    for other in os.listdir(folder):
        if other.startswith(prefix) and other.endswith(".tar") and other != name:
            os.unlink(os.path.join(folder, other))
    return path, created


def missing(files, found):
    """Names of ``files`` (``{name: size}``) that a host's folder lacks or holds with another
    size. ``found``: what ``ansible.builtin.find`` returned there (``[{path, size}, ...]``)."""
    have = {}
    for entry in found or ():
        if isinstance(entry, dict) and entry.get("path"):
            have[os.path.basename(entry["path"])] = entry.get("size")
    return sorted(name for name, size in (files or {}).items() if have.get(name) != size)


def install_indexes(plan, index_url="", extra_index_urls=(), use_plan=True):
    """The package indexes the install uses: ``{"index_url", "extra_index_urls"}``, each the
    user's when given, else the plan's (``use_plan``: vllm_install_plan_indexes), else none."""
    return {"index_url": index_url or (plan["index_url"] if use_plan else ""),
            "extra_index_urls": extra_index_urls or (plan["extra_index_urls"] if use_plan else [])}


def _prefixed(prefix, values):
    return [prefix + str(value) for value in values or []]


def uv_source_args(index_url, extra_index_urls=(), find_links=(), index_strategy=""):
    """uv's options for the package sources (``uv pip compile`` and ``uv pip sync``)."""
    return ((["--index-url", index_url] if index_url else [])
            + _prefixed("--extra-index-url=", extra_index_urls)
            + _prefixed("--find-links=", find_links)
            + (["--index-strategy", index_strategy] if index_strategy else []))


def uv_compile_argv(uv, venv, lock, requirements, source_args, no_emit=()):
    """``uv pip compile`` of the requirements into the lock, for the venv's Python; the packages
    removed after the install (``no_emit``) left out of the lock."""
    return ([uv, "pip", "compile", "--quiet", "--no-header", "--python", str(venv) + "/bin/python",
             "--output-file", lock, requirements] + list(source_args)
            + _prefixed("--no-emit-package=", no_emit))


def uv_sync_argv(uv, venv, lock, source_args, wheelhouse_on=False, wheelhouse_source=""):
    """``uv pip sync`` of the lock (bytecode compiled once here): from the wheelhouse only when
    there is one, else from the package sources."""
    sources = (["--no-index", "--find-links", wheelhouse_source] if wheelhouse_on
               else list(source_args))
    return [uv, "pip", "sync", "--compile-bytecode", "--python", str(venv) + "/bin/python",
            lock] + sources


def wheelhouse_place(mode, folder="", python="", controller_folder="", controller_python=""):
    """Where the wheelhouse is built (``mode``: vllm_install_wheelhouse): ``{"delegate", "root",
    "python"}``; the user's folder and Python win, else the controller's (the repository's
    .cache, realpath'd, and the playbook's Python) or a wheelhouse host's defaults."""
    controller = mode == "controller"
    return {
        "delegate": "localhost" if controller else mode,
        "root": folder or (os.path.realpath(controller_folder) if controller
                           else "/var/cache/vllm-provision/wheelhouse"),
        "python": python or (controller_python if controller else "/usr/bin/python3"),
    }


def slurped_lock_sha256(slurped):
    """sha256 of a lock file from its ``slurp`` result; a placeholder when there is no content
    (check mode on a new host: not compiled yet)."""
    import base64

    content = slurped.get("content") if isinstance(slurped, dict) else None
    if content is None:
        return "<sha256 of requirements.lock>"
    return hashlib.sha256(base64.b64decode(content)).hexdigest()


def wheelhouse_source(controller, host_folder, url, sha256):
    """Where ``uv pip sync`` finds the wheels: the host's folder of a controller wheelhouse, else
    the lock's folder under the wheelhouse URL."""
    if controller:
        return host_folder
    return re.sub("/+$", "", url) + "/" + sha256 + "/"
