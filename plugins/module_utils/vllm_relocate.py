# -*- coding: utf-8 -*-
"""Move a model off a Windows drive into the model store on the distro's own filesystem.

Pure standard library: used by the ``vllm_model_relocate`` module, ``benchmarks/relocate.py`` and
the tests. Why: under WSL2, ``/mnt/c`` is a 9p (drvfs) mount; vLLM mmaps safetensors, and over 9p
that is very slow (113 s against 0.26 s in one report). The copy must never lose anything:

- whether a path is on a Windows drive is read from the mount table (fstype 9p/drvfs/v9fs,
  ``aname=drvfs`` in the options, or a ``C:\\`` source), not guessed from ``/mnt/<letter>``;
- free space is checked first (the bytes still to copy against what is free);
- files go into ``.<name>.partial`` beside the target; each one is hashed (sha256) while read
  from the source, written, flushed, dropped from the page cache and read back; its size and
  hash must match, and the source file must not have changed meanwhile (size and mtime);
- each verified file is recorded in a journal, so an interrupted copy resumes without copying
  finished files again (they are re-read and re-hashed, not copied);
- when every file is verified the manifest is written and the folder switched into place with
  one rename (a previous copy of ours is moved aside first and removed afterwards; a folder that
  is not ours is never replaced);
- the manifest lets a second run verify cheaply (sizes and mtimes) and copy nothing, or repair
  only the files that differ (``full`` verification re-hashes every file);
- ``move`` removes the source files only after the switch, and only those that were verified.

Hugging Face cache layouts work: ``models--org--name`` (the snapshot named by ``refs/main``, or the
only one) or ``models--org--name/snapshots/<rev>``; its files are symlinks into ``blobs/``, and
the copy holds the real files (a plain model folder).
"""
from __future__ import absolute_import, division, print_function

import errno
import hashlib
import json
import os
import re
import shutil
import stat
import time

__metaclass__ = type

WINDOWS_FSTYPES = ("9p", "drvfs", "v9fs")
MANIFEST = ".vllm-relocate.json"
JOURNAL = ".vllm-relocate.journal"
SKIP_DIRS = (".git", ".cache", ".huggingface")
CHUNK = 8 * 1024 * 1024
SPACE_MARGIN = 64 * 1024 * 1024


class RelocateError(Exception):
    """A clear reason why nothing was switched; the source is intact."""


# ---------------------------------------------------------------------------------------------
# the mount table


def _unescape(field):
    """/proc/mounts escapes space, tab, newline and backslash as octal (\\040 ...)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mounts(text):
    """/proc/self/mounts text -> [{"source", "mountpoint", "fstype", "options"}]."""
    mounts = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        mounts.append({"source": _unescape(parts[0]), "mountpoint": _unescape(parts[1]),
                       "fstype": parts[2], "options": _unescape(parts[3])})
    return mounts


def mount_of(path, mounts):
    """The mount holding ``path`` (an absolute, resolved path): the longest mountpoint prefix;
    the last one mounted wins a tie (it hides the earlier ones)."""
    best = None
    for mount in mounts:
        point = mount["mountpoint"]
        if path == point or point == "/" or path.startswith(point.rstrip("/") + "/"):
            if best is None or len(point) >= len(best["mountpoint"]):
                best = mount
    return best


def windows_drive(path, mounts, fstypes=WINDOWS_FSTYPES):
    """``(True, mount)`` when ``path`` lives on a Windows drive, else ``(False, mount)``."""
    mount = mount_of(path, mounts)
    if mount is None:
        return False, None
    fstypes = tuple(f.lower() for f in fstypes)
    if mount["fstype"].lower() in fstypes:
        return True, mount
    if "aname=drvfs" in mount["options"] or re.match(r"^[A-Za-z]:\\", mount["source"]):
        return True, mount
    return False, mount


# ---------------------------------------------------------------------------------------------
# the source


def resolve_source(path):
    """The folder to copy: a Hugging Face ``models--*`` repo resolves to its snapshot."""
    path = os.path.abspath(path)
    snapshots = os.path.join(path, "snapshots")
    if os.path.basename(path).startswith("models--") and os.path.isdir(snapshots):
        ref = os.path.join(path, "refs", "main")
        if os.path.isfile(ref):
            with open(ref) as handle:
                revision = handle.read().strip()
            if os.path.isdir(os.path.join(snapshots, revision)):
                return os.path.join(snapshots, revision)
        revisions = sorted(os.listdir(snapshots))
        if len(revisions) != 1:
            raise RelocateError("%s is a Hugging Face cache with %d snapshots and no refs/main; "
                                "give the snapshot folder (%s/<revision>)" % (path, len(revisions), snapshots))
        return os.path.join(snapshots, revisions[0])
    return path


def list_files(root):
    """Files under ``root`` (symlinks followed, ``.git`` and caches skipped) ->
    ``{relpath: {"src": real path, "size", "mtime_ns"}}``."""
    if not os.path.isdir(root):
        raise RelocateError("%s is not a folder" % root)
    files = {}
    for directory, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            try:
                info = os.stat(full)
            except OSError as exc:
                raise RelocateError("cannot read %s: %s (a broken link into blobs/?)" % (full, exc.strerror))
            if not stat.S_ISREG(info.st_mode):
                continue
            files[rel] = {"src": os.path.realpath(full), "size": info.st_size, "mtime_ns": info.st_mtime_ns}
    if not files:
        raise RelocateError("%s holds no files" % root)
    return files


# ---------------------------------------------------------------------------------------------
# hashing and copying one file


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        _drop_cache(handle)
        while True:
            block = handle.read(CHUNK)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


def _drop_cache(handle):
    """Make the next read come from the disk, not from what we just wrote."""
    if hasattr(os, "posix_fadvise"):
        try:
            os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass


def copy_verified(src, dst, expect, on_bytes=None):
    """Copy ``src`` to ``dst`` hashing what is read, then read ``dst`` back: its size and sha256
    must match, and ``src`` must still have the size and mtime in ``expect``. Returns the sha256."""
    digest = hashlib.sha256()
    written = 0
    try:
        with open(src, "rb") as source, open(dst, "wb") as target:
            while True:
                block = source.read(CHUNK)
                if not block:
                    break
                digest.update(block)
                target.write(block)
                written += len(block)
                if on_bytes:
                    on_bytes(len(block))
            target.flush()
            os.fsync(target.fileno())
            _drop_cache(target)
    except (IOError, OSError) as exc:
        _unlink(dst)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise RelocateError("the model store filled up while copying %s (%s); nothing was switched, the "
                                "source is intact and finished files are kept for the next run: free space and "
                                "run again" % (src, exc.strerror))
        raise RelocateError("copying %s failed: %s; nothing was switched, the source is intact" % (src, exc))
    after = os.stat(src)
    if after.st_size != expect["size"] or after.st_mtime_ns != expect["mtime_ns"] or written != expect["size"]:
        _unlink(dst)
        raise RelocateError("%s changed during the copy (size %d -> %d, read %d bytes); nothing was switched: run "
                            "again once nothing writes to the model" % (src, expect["size"], after.st_size, written))
    source_hash = digest.hexdigest()
    if os.path.getsize(dst) != written or sha256_file(dst) != source_hash:
        _unlink(dst)
        raise RelocateError("%s does not read back as written (size or sha256 differs); the target disk may be "
                            "failing; nothing was switched" % dst)
    return source_hash


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# manifests


def read_json(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (IOError, OSError, ValueError):
        return None


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.rename(tmp, path)


def read_journal(path):
    """Entries written after each verified file; a torn last line (a kill mid-write) is ignored."""
    entries = {}
    try:
        with open(path) as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                entries[entry["path"]] = entry
    except (IOError, OSError):
        pass
    return entries


def _append_journal(path, entry):
    with open(path, "a") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def _same_source(entry, info):
    return entry.get("size") == info["size"] and entry.get("mtime_ns") == info["mtime_ns"]


def _target_matches(path, entry, full):
    try:
        info = os.stat(path)
    except OSError:
        return False
    if info.st_size != entry["size"]:
        return False
    if full:
        return sha256_file(path) == entry["sha256"]
    return info.st_mtime_ns == entry.get("target_mtime_ns")


# ---------------------------------------------------------------------------------------------
# free space


def free_bytes(path):
    stat_ = os.statvfs(path)
    return stat_.f_bavail * stat_.f_frsize


def human(num):
    num = float(num)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if num < 1024 or unit == "GiB":
            return ("%d %s" % (num, unit)) if unit == "B" else ("%.1f %s" % (num, unit))
        num /= 1024.0
    return "%.1f GiB" % num


def nearest_existing(path):
    """The path or its nearest existing parent (where a new folder would land)."""
    path = os.path.abspath(path)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def check_space(store, needed, free=None):
    free = free_bytes(store) if free is None else free
    if needed + SPACE_MARGIN > free:
        raise RelocateError("the model needs %s more in %s (plus %s margin) but only %s is free; nothing was "
                            "copied: free space there or set vllm_model_store to a larger native filesystem"
                            % (human(needed), store, human(SPACE_MARGIN), human(free)))


# ---------------------------------------------------------------------------------------------
# the whole relocation


class Progress(object):
    """Calls ``report(done, total, current)`` at most every ``interval`` seconds, and at the end."""

    def __init__(self, total, report, interval=2.0):
        self.total, self.done, self.report, self.interval = total, 0, report, interval
        self.current, self._last = "", 0.0

    def add(self, num):
        self.done += num
        now = time.time()
        if self.report and now - self._last >= self.interval:
            self._last = now
            self.report(self.done, self.total, self.current)

    def finish(self):
        if self.report:
            self.report(self.done, self.total, self.current)


def default_name(src):
    """The copy's folder name: ``org--name`` for a Hugging Face cache (repo or snapshot), else the
    folder's own name."""
    parts = os.path.abspath(src).rstrip("/").split("/")
    for part in reversed(parts):
        if part.startswith("models--"):
            return part[len("models--"):]
    return parts[-1]


def plan(src, store, name):
    """Paths of one relocation (no I/O beyond resolving the source)."""
    source = resolve_source(src)
    target = os.path.join(os.path.abspath(store), name)
    return {"source": source, "target": target,
            "partial": os.path.join(os.path.abspath(store), "." + name + ".partial"),
            "manifest": os.path.join(target, MANIFEST)}


def relocate(src, store, name, mode="copy", verify="quick", check_mode=False, progress=None,
             check_free=True, free=None):
    """Copy (or move) the model folder ``src`` to ``store/name``, verified; see the module doc.

    Returns ``{"path", "relocated", "changed", "copied_files", "copied_bytes", "reused_files",
    "verified_files", "verified_bytes", "total_bytes", "manifest", "source", "removed_source"}``.
    Raises RelocateError with the reason; the source is intact whenever it raises."""
    if mode not in ("copy", "move"):
        raise RelocateError("mode is %r; accepted: copy, move" % mode)
    paths = plan(src, store, name)
    source, target, partial = paths["source"], paths["target"], paths["partial"]
    result = {"path": target, "relocated": False, "changed": False, "copied_files": 0, "copied_bytes": 0,
              "reused_files": 0, "verified_files": 0, "verified_bytes": 0, "total_bytes": 0,
              "manifest": paths["manifest"], "source": source, "removed_source": False}
    manifest = read_json(paths["manifest"]) if os.path.isdir(target) else None
    if os.path.exists(target) and manifest is None:
        raise RelocateError("%s exists and was not made by this relocation (no %s); it is left alone: move it "
                            "away or choose another vllm_model_name" % (target, MANIFEST))
    source_present = os.path.isdir(source)
    if not source_present:
        if manifest and _manifest_intact(target, manifest, verify == "full"):
            result.update(verified_files=len(manifest["files"]), total_bytes=manifest["total_bytes"],
                          verified_bytes=manifest["total_bytes"] if verify == "full" else 0)
            return result  # moved earlier: the copy is all there is
        raise RelocateError("the model source %s does not exist" % source)
    files = list_files(source)
    total = sum(info["size"] for info in files.values())
    result["total_bytes"] = total

    # 1. a finished copy: verify cheaply, copy nothing
    good = {}
    if manifest and manifest.get("source") == source:
        for rel, entry in manifest["files"].items():
            info = files.get(rel)
            if info and _same_source(entry, info) and _target_matches(os.path.join(target, rel), entry,
                                                                      verify == "full"):
                good[rel] = entry
        if set(good) == set(files):
            result.update(verified_files=len(good), verified_bytes=total if verify == "full" else 0)
            if mode == "move":
                _remove_source(source, files, result, check_mode)
            return result
    result["changed"] = result["relocated"] = True
    if check_mode:
        result["copied_files"] = len(files) - len(good)
        result["copied_bytes"] = sum(files[r]["size"] for r in files if r not in good)
        return result

    # 2. resume what an interrupted run left, reuse what the old copy has right; check the space
    journal_path = os.path.join(partial, JOURNAL)
    journal = read_journal(journal_path)
    if any(entry.get("source") != source for entry in journal.values()):
        journal = {}
    done, reuse = {}, []
    for rel, info in files.items():
        dst = os.path.join(partial, rel)
        entry = journal.get(rel)
        if entry and _same_source(entry, info) and os.path.exists(dst) and \
                os.path.getsize(dst) == info["size"] and sha256_file(dst) == entry["sha256"]:
            done[rel] = entry
            result["verified_files"] += 1
            result["verified_bytes"] += info["size"]
        elif rel in good:
            reuse.append(rel)
    todo = sorted(rel for rel in files if rel not in done and rel not in reuse)
    needed = sum(files[rel]["size"] for rel in todo)
    if check_free:
        check_space(nearest_existing(partial), needed, free)
    os.makedirs(partial, exist_ok=True)
    for rel in reuse:
        dst = os.path.join(partial, rel)
        _ensure_dir(os.path.dirname(dst))
        _unlink(dst)
        os.link(os.path.join(target, rel), dst)  # same filesystem: the verified old copy, no bytes copied
        entry = dict(good[rel], path=rel, source=source)
        _append_journal(journal_path, entry)
        done[rel] = entry
    result["reused_files"] = len(done)

    # 3. copy and verify the rest
    meter = Progress(needed, progress)
    for rel in todo:
        info = files[rel]
        dst = os.path.join(partial, rel)
        _ensure_dir(os.path.dirname(dst))
        meter.current = rel
        before = os.stat(info["src"])
        if before.st_size != info["size"] or before.st_mtime_ns != info["mtime_ns"]:
            raise RelocateError("%s changed while the copy was being planned; run again once nothing writes to "
                                "the model" % info["src"])
        digest = copy_verified(info["src"], dst, info, meter.add)
        entry = {"path": rel, "source": source, "size": info["size"], "mtime_ns": info["mtime_ns"],
                 "sha256": digest, "target_mtime_ns": os.stat(dst).st_mtime_ns}
        _append_journal(journal_path, entry)
        done[rel] = entry
        result["copied_files"] += 1
        result["copied_bytes"] += info["size"]
        result["verified_files"] += 1
        result["verified_bytes"] += info["size"]
    meter.finish()

    # 4. every file verified: manifest, then one rename
    for rel, entry in done.items():
        entry["target_mtime_ns"] = os.stat(os.path.join(partial, rel)).st_mtime_ns
    new_manifest = {"source": source, "name": name, "total_bytes": total, "created": int(time.time()),
                    "files": dict((rel, dict((k, v) for k, v in entry.items() if k not in ("path", "source")))
                                  for rel, entry in done.items())}
    write_json(os.path.join(partial, MANIFEST), new_manifest)
    _unlink(journal_path)
    _fsync_dir(partial)
    old = None
    if os.path.exists(target):
        old = os.path.join(os.path.dirname(target), "." + name + ".old")
        if os.path.exists(old):
            shutil.rmtree(old)
        os.rename(target, old)
    os.rename(partial, target)
    _fsync_dir(os.path.dirname(target))
    if old:
        shutil.rmtree(old, ignore_errors=True)
    if mode == "move":
        _remove_source(source, files, result, check_mode)
    return result


def _manifest_intact(target, manifest, full):
    return all(_target_matches(os.path.join(target, rel), entry, full) for rel, entry in manifest["files"].items())


def _remove_source(source, files, result, check_mode):
    """After a verified switch: remove the source files (for a Hugging Face snapshot, the links and
    the blobs no other snapshot points to), then the folders left empty."""
    result["removed_source"] = True
    result["changed"] = True
    if check_mode:
        return
    repo = _hf_repo_of(source)
    keep = set()
    if repo:
        for directory, _, names in os.walk(os.path.join(repo, "snapshots")):
            if directory == source or directory.startswith(source + os.sep):
                continue
            for name in names:
                keep.add(os.path.realpath(os.path.join(directory, name)))
    for rel, info in files.items():
        link = os.path.join(source, rel)
        if os.path.islink(link):
            os.unlink(link)
            if repo and info["src"] not in keep and info["src"].startswith(os.path.join(repo, "blobs") + os.sep):
                _unlink(info["src"])
        else:
            _unlink(link)
    for directory, dirs, _ in os.walk(source, topdown=False):
        for name in dirs:
            try:
                os.rmdir(os.path.join(directory, name))
            except OSError:
                pass
    try:
        os.rmdir(source)
    except OSError:
        pass


def _hf_repo_of(source):
    parent = os.path.dirname(source)
    if os.path.basename(parent) == "snapshots" and os.path.basename(os.path.dirname(parent)).startswith("models--"):
        return os.path.dirname(parent)
    return None


def _ensure_dir(path):
    if not os.path.isdir(path):
        os.makedirs(path)


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
