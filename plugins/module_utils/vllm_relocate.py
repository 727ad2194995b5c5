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

It runs as root over folders other users own (the Windows user's source, a store the service user
may own), so it trusts no link it did not check:

- the source: a link is copied only when it resolves to a regular file inside the model folder
  (for a Hugging Face snapshot, inside ``models--org--name``: snapshot -> blobs); links leaving
  it, links to folders, FIFOs, sockets and devices are refused, naming them. Each file is opened
  without following a link (O_NOFOLLOW, component by component) and must still be the file that
  was checked (device, inode, size, mtime), so swapping it for a link between check and copy fails;
- the copy keeps the source's permission bits, never wider (masked by the umask; no setuid);
- the store is opened from ``/`` one component at a time; a link on the way is followed only when
  only root could have planted it. Inside it nothing is reached through a link: every folder is
  opened with O_NOFOLLOW from its parent's descriptor, files are created new (O_EXCL, whatever had
  the name is removed first), a link planted as ``.<name>.partial`` or inside it is replaced, a
  link as the target folder is refused;
- the free-space check counts only what is still to be written (a half-written file left by a
  kill is replaced, so its space counts as free).
"""
from __future__ import absolute_import, division, print_function

import errno
import hashlib
import json
import os
import re
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
# safe file access: folders opened one component at a time, never following a link

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR = os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
_READ = os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC
_MAX_LINKS = 40


def _close(fd):
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def _lstat_at(dir_fd, name):
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _trusted_link(parent, link):
    """A link only root (or we) could have planted: the link and the folder holding it are ours
    or root's, and nobody else can write that folder (or it is sticky, /tmp style)."""
    owners = (0, os.geteuid())
    if link.st_uid not in owners or parent.st_uid not in owners:
        return False
    return not (parent.st_mode & 0o022) or bool(parent.st_mode & stat.S_ISVTX)


def open_store(path, create=True):
    """Open the folder ``path`` (made when missing and ``create``) walking from ``/`` one component
    at a time. A link on the way is followed only when only root could have planted it (see
    _trusted_link): a service user that owns a folder on the way cannot point the store elsewhere.
    Returns a folder fd, or None when it is missing and not ``create``."""
    fd = os.open("/", _DIR)
    parts = [p for p in os.path.abspath(path).split("/") if p]
    hops = 0
    try:
        while parts:
            part = parts.pop(0)
            if part == ".":
                continue
            info = _lstat_at(fd, part)
            if info is None:
                if not create:
                    _close(fd)
                    return None
                os.mkdir(part, 0o755, dir_fd=fd)
            elif stat.S_ISLNK(info.st_mode):
                if not _trusted_link(os.fstat(fd), info):
                    raise RelocateError("the model store %s: %s on its way is a link (to %s) in a folder another user "
                                        "can write; refused: give the store's real path" % (
                                            path, part, os.readlink(part, dir_fd=fd)))
                hops += 1
                if hops > _MAX_LINKS:
                    raise RelocateError("the model store %s: too many links on its way" % path)
                link = os.readlink(part, dir_fd=fd)
                if link.startswith("/"):
                    _close(fd)
                    fd = os.open("/", _DIR)
                parts = [p for p in link.split("/") if p] + parts
                continue
            try:
                new = os.open(part, _DIR, dir_fd=fd)
            except OSError as exc:
                raise RelocateError("the model store %s: %s is not a folder (%s)" % (path, part, exc.strerror))
            _close(fd)
            fd = new
        return fd
    except BaseException:
        _close(fd)
        raise


def _open_dir(dir_fd, name, create=False, replace=False, where=""):
    """The folder ``name`` in ``dir_fd``, never through a link. ``create``: made when missing;
    ``replace``: a link or file in its place is removed first (our own scratch folders)."""
    info = _lstat_at(dir_fd, name)
    if info is not None and not stat.S_ISDIR(info.st_mode):
        if not replace:
            kind = "a link" if stat.S_ISLNK(info.st_mode) else "not a folder"
            raise RelocateError("%s is %s; refused (links are never followed in the model store)"
                                % (os.path.join(where, name), kind))
        os.unlink(name, dir_fd=dir_fd)
        info = None
    if info is None:
        if not create:
            raise FileNotFoundError(errno.ENOENT, "no such folder", os.path.join(where, name))
        os.mkdir(name, 0o755, dir_fd=dir_fd)
    return os.open(name, _DIR, dir_fd=dir_fd)


def _open_parent(root_fd, rel, create=False, replace=False, where=""):
    """(fd of the folder holding ``rel`` under ``root_fd``, file name); walked without links."""
    parts = rel.split("/")
    fd = os.dup(root_fd)
    try:
        for index, part in enumerate(parts[:-1]):
            if part in ("", ".", ".."):
                raise RelocateError("%r is not a plain relative path" % rel)
            new = _open_dir(fd, part, create, replace, os.path.join(where, *parts[:index]))
            _close(fd)
            fd = new
    except BaseException:
        _close(fd)
        raise
    return fd, parts[-1]


def _open_file(root_fd, rel, where=""):
    """Open the regular file ``rel`` under ``root_fd`` for reading, no link on the way -> (fd, stat)."""
    parent, name = _open_parent(root_fd, rel, where=where)
    try:
        fd = os.open(name, _READ, dir_fd=parent)
    finally:
        _close(parent)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        _close(fd)
        raise RelocateError("%s is not a regular file" % os.path.join(where, rel))
    return fd, info


def _unlink_at(dir_fd, name):
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return
    try:
        if stat.S_ISDIR(info.st_mode):
            _rmtree_at(dir_fd, name)
        else:
            os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _rmtree_at(dir_fd, name):
    """Remove the folder ``name`` in ``dir_fd`` and everything in it, never following a link."""
    try:
        fd = os.open(name, _DIR, dir_fd=dir_fd)
    except OSError:
        try:
            os.unlink(name, dir_fd=dir_fd)  # a link or a file in its place
        except OSError:
            pass
        return
    try:
        for entry in list(os.scandir(fd)):
            if entry.is_dir(follow_symlinks=False):
                _rmtree_at(fd, entry.name)
            else:
                try:
                    os.unlink(entry.name, dir_fd=fd)
                except OSError:
                    pass
    finally:
        _close(fd)
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except OSError:
        pass


def _fsync_fd(fd):
    try:
        os.fsync(fd)
    except OSError:
        pass


def _same_file(left, right):
    return (left.st_dev, left.st_ino) == (right.st_dev, right.st_ino)


def _store_mode(source_mode):
    """The copy's mode: the source's permission bits, never wider, masked by the umask (no setuid,
    setgid or sticky bit)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return stat.S_IMODE(source_mode) & 0o777 & ~umask


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

_REVISION = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def _inside(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _read_small(path, limit=4096):
    """A small regular file's text, never through a link or from a FIFO or device."""
    fd = os.open(path, _READ)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RelocateError("%s is not a regular file" % path)
        return os.read(fd, limit).decode("utf-8", "replace")
    finally:
        _close(fd)


def resolve_source(path):
    """The folder to copy: a Hugging Face ``models--*`` repo resolves to its snapshot (the one
    ``refs/main`` names, a plain revision name, or the only one), which must lie inside the repo."""
    path = os.path.abspath(path)
    snapshots = os.path.join(path, "snapshots")
    if os.path.basename(path).startswith("models--") and os.path.isdir(snapshots):
        chosen = None
        ref = os.path.join(path, "refs", "main")
        if os.path.lexists(ref):
            try:
                revision = _read_small(ref).strip()
            except OSError as exc:
                raise RelocateError("cannot read %s: %s" % (ref, exc.strerror))
            if not _REVISION.match(revision) or revision in (".", ".."):
                raise RelocateError("%s names %r, not a revision; refused" % (ref, revision[:80]))
            if os.path.isdir(os.path.join(snapshots, revision)):
                chosen = os.path.join(snapshots, revision)
        if chosen is None:
            revisions = sorted(os.listdir(snapshots))
            if len(revisions) != 1:
                raise RelocateError("%s is a Hugging Face cache with %d snapshots and no refs/main; give the "
                                    "snapshot folder (%s/<revision>)" % (path, len(revisions), snapshots))
            chosen = os.path.join(snapshots, revisions[0])
        path = chosen
    repo = _hf_repo_of(path)
    if repo and not _inside(os.path.realpath(path), os.path.realpath(repo)):
        raise RelocateError("the snapshot %s is a link to %s, outside the repository folder %s; refused"
                            % (path, os.path.realpath(path), repo))
    return path


def source_bound(source):
    """The folder links in the source may point into: the repository folder ``models--org--name``
    for a Hugging Face snapshot (its files link into ``blobs/``), else the model folder itself."""
    return _hf_repo_of(source) or source


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _kind(mode):
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def list_files(root, bound=None):
    """Files under ``root`` (``.git`` and caches skipped) ->
    ``{relpath: {"src": real path, "inner": its path under the bound, "size", "mtime_ns", "mode",
    "dev", "ino"}}``.

    A link is followed only to a regular file inside ``bound`` (the model folder, or a Hugging
    Face repository folder: snapshot -> blobs); a link leaving it, a link to a folder, and FIFOs,
    sockets and devices are refused, naming them."""
    if not os.path.isdir(root):
        raise RelocateError("%s is not a folder" % root)
    bound = bound or source_bound(root)
    real_bound = os.path.realpath(bound)
    real_root = os.path.realpath(root)
    if not _inside(real_root, real_bound):
        raise RelocateError("%s resolves to %s, outside %s; refused" % (root, real_root, bound))
    files = {}
    for directory, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        entries = [(d, True) for d in dirs if d not in SKIP_DIRS] + [(n, False) for n in sorted(names)]
        keep = []
        for name, listed_as_dir in entries:
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            try:
                info = os.lstat(full)
            except OSError as exc:
                raise RelocateError("cannot read %s: %s" % (full, exc.strerror))
            real = os.path.join(real_root, rel)
            if stat.S_ISLNK(info.st_mode):
                real = os.path.realpath(full)
                if not _inside(real, real_bound):
                    raise RelocateError("%s is a link to %s, outside the model folder %s; refused (only links "
                                        "inside it, such as snapshot -> blobs, are copied)" % (full, real, bound))
                try:
                    info = os.stat(real, follow_symlinks=False)
                except OSError as exc:
                    raise RelocateError("cannot read %s: %s (a broken link into blobs/?)" % (full, exc.strerror))
                if stat.S_ISDIR(info.st_mode):
                    raise RelocateError("%s is a link to the folder %s; refused (links to folders are not "
                                        "followed)" % (full, real))
            if stat.S_ISDIR(info.st_mode):
                if listed_as_dir:
                    keep.append(name)
                continue
            if not stat.S_ISREG(info.st_mode):
                raise RelocateError("%s is %s; refused (a model folder holds regular files)"
                                    % (full, _kind(info.st_mode)))
            files[rel] = {"src": real, "inner": os.path.relpath(real, real_bound), "size": info.st_size,
                          "mtime_ns": info.st_mtime_ns, "mode": stat.S_IMODE(info.st_mode),
                          "dev": info.st_dev, "ino": info.st_ino}
        dirs[:] = keep
    if not files:
        raise RelocateError("%s holds no files" % root)
    return files


def _open_source(bound_fd, info):
    """Open a listed source file for reading: no link on the way (the listing resolved them), and
    it must still be the file that was checked (device, inode, size, mtime)."""
    try:
        fd, now = _open_file(bound_fd, info["inner"])
    except OSError as exc:
        raise RelocateError("%s changed since it was checked (%s); nothing was switched: run again once nothing "
                            "writes to the model" % (info["src"], exc.strerror))
    if (now.st_dev, now.st_ino) != (info["dev"], info["ino"]) or now.st_size != info["size"] or \
            now.st_mtime_ns != info["mtime_ns"]:
        _close(fd)
        raise RelocateError("%s changed since it was checked (another file, size or mtime); nothing was switched: "
                            "run again once nothing writes to the model" % info["src"])
    return fd, now


# ---------------------------------------------------------------------------------------------
# hashing and copying one file


def _sha256_fd(fd):
    digest = hashlib.sha256()
    os.lseek(fd, 0, os.SEEK_SET)
    _drop_cache_fd(fd)
    while True:
        block = os.read(fd, CHUNK)
        if not block:
            break
        digest.update(block)
    return digest.hexdigest()


def sha256_file(path):
    fd = os.open(path, _READ)
    try:
        return _sha256_fd(fd)
    finally:
        _close(fd)


def _drop_cache_fd(fd):
    """Make the next read come from the disk, not from what we just wrote."""
    if hasattr(os, "posix_fadvise"):
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def copy_verified(bound_fd, info, dir_fd, name, on_bytes=None):
    """Copy the listed source file ``info`` to ``name`` in ``dir_fd`` (a new file: whatever had
    that name is removed first, never written through), hashing what is read; then read it back:
    size and sha256 must match, and the source must not have changed. Returns (sha256, the
    copy's stat)."""
    src = info["src"]
    digest = hashlib.sha256()
    written = 0
    source_fd, target_fd = None, None
    try:
        source_fd, _ = _open_source(bound_fd, info)
        _unlink_at(dir_fd, name)
        mode = _store_mode(info["mode"])
        target_fd = os.open(name, _NEW, mode, dir_fd=dir_fd)
        os.fchmod(target_fd, mode)
        while True:
            block = os.read(source_fd, CHUNK)
            if not block:
                break
            digest.update(block)
            _write_all(target_fd, block)
            written += len(block)
            if on_bytes:
                on_bytes(len(block))
        os.fsync(target_fd)
        _drop_cache_fd(target_fd)
        after = os.fstat(source_fd)
    except (IOError, OSError) as exc:
        _close(target_fd)
        _close(source_fd)
        _unlink_at(dir_fd, name)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise RelocateError("the model store filled up while copying %s (%s); nothing was switched, the "
                                "source is intact and finished files are kept for the next run: free space and "
                                "run again" % (src, exc.strerror))
        raise RelocateError("copying %s failed: %s; nothing was switched, the source is intact" % (src, exc))
    except BaseException:
        _close(target_fd)
        _close(source_fd)
        _unlink_at(dir_fd, name)
        raise
    _close(source_fd)
    if after.st_size != info["size"] or after.st_mtime_ns != info["mtime_ns"] or written != info["size"]:
        _close(target_fd)
        _unlink_at(dir_fd, name)
        raise RelocateError("%s changed during the copy (size %d -> %d, read %d bytes); nothing was switched: run "
                            "again once nothing writes to the model" % (src, info["size"], after.st_size, written))
    source_hash = digest.hexdigest()
    try:
        mine = os.fstat(target_fd)
        back_fd, back = _open_file(dir_fd, name)
        try:
            same = _same_file(mine, back) and back.st_size == written and _sha256_fd(back_fd) == source_hash
        finally:
            _close(back_fd)
    finally:
        _close(target_fd)
    if not same:
        _unlink_at(dir_fd, name)
        raise RelocateError("%s does not read back as written (size or sha256 differs); the target disk may be "
                            "failing; nothing was switched" % name)
    return source_hash, back


# ---------------------------------------------------------------------------------------------
# manifests and the journal (read and written inside the store's folders, never through a link)

_JSON_LIMIT = 64 * 1024 * 1024


def _read_at(dir_fd, name):
    try:
        fd, info = _open_file(dir_fd, name)
    except (OSError, RelocateError):
        return None
    try:
        if info.st_size > _JSON_LIMIT:
            return None
        chunks = []
        while True:
            block = os.read(fd, CHUNK)
            if not block:
                break
            chunks.append(block)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        _close(fd)


def read_json(path):
    parent = os.open(os.path.dirname(os.path.abspath(path)) or "/", _DIR)
    try:
        return _read_json_at(parent, os.path.basename(path))
    finally:
        _close(parent)


def _read_json_at(dir_fd, name):
    text = _read_at(dir_fd, name)
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _write_json_at(dir_fd, name, data):
    tmp = name + ".tmp"
    _unlink_at(dir_fd, tmp)
    fd = os.open(tmp, _NEW, 0o644, dir_fd=dir_fd)
    try:
        _write_all(fd, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        _close(fd)
    os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def _parse_journal(text):
    entries = {}
    for line in (text or "").splitlines():
        try:
            entry = json.loads(line)
            entries[entry["path"]] = entry
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line (a kill mid-write)
    return entries


def read_journal(path):
    """Entries written after each verified file; a torn last line (a kill mid-write) is ignored."""
    try:
        parent = os.open(os.path.dirname(os.path.abspath(path)), _DIR)
    except OSError:
        return {}
    try:
        return _parse_journal(_read_at(parent, os.path.basename(path)))
    finally:
        _close(parent)


def _append_journal(path, entry):
    """Append one entry (tests build journals with it); never through a link."""
    parent = os.open(os.path.dirname(os.path.abspath(path)), _DIR)
    try:
        fd = os.open(os.path.basename(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                     0o644, dir_fd=parent)
        try:
            _journal_line(fd, entry)
        finally:
            _close(fd)
    finally:
        _close(parent)


def _journal_line(fd, entry):
    _write_all(fd, (json.dumps(entry, sort_keys=True) + "\n").encode("utf-8"))
    os.fsync(fd)


def _same_source(entry, info):
    return entry.get("size") == info["size"] and entry.get("mtime_ns") == info["mtime_ns"]


def _target_matches(root_fd, rel, entry, full):
    """The stat of ``rel`` under ``root_fd`` when it is a regular file (no link on the way) that
    matches ``entry``, else None."""
    try:
        fd, info = _open_file(root_fd, rel)
    except (OSError, RelocateError):
        return None
    try:
        if info.st_size != entry.get("size"):
            return None
        if full:
            return info if _sha256_fd(fd) == entry.get("sha256") else None
        return info if info.st_mtime_ns == entry.get("target_mtime_ns") else None
    finally:
        _close(fd)


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


def _held_bytes(root_fd, rel):
    """Bytes a file left in the partial folder holds on disk (0 when there is none): it is
    replaced, so its space comes back before the copy needs it."""
    try:
        parent, name = _open_parent(root_fd, rel)
    except (OSError, RelocateError):
        return 0
    try:
        info = _lstat_at(parent, name)
    finally:
        _close(parent)
    if info is None or not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        return 0  # a hard link (a reused file) frees nothing
    return min(info.st_size, getattr(info, "st_blocks", 0) * 512) if hasattr(info, "st_blocks") else info.st_size


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
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise RelocateError("the copy's name %r is not a plain folder name" % (name,))
    source = resolve_source(src)
    target = os.path.join(os.path.abspath(store), name)
    return {"source": source, "target": target,
            "partial": os.path.join(os.path.abspath(store), "." + name + ".partial"),
            "manifest": os.path.join(target, MANIFEST)}


def _target_state(store_fd, name, target):
    """(fd of our earlier copy or None, its manifest or None); refuses what is not ours."""
    if store_fd is None:
        return None, None
    info = _lstat_at(store_fd, name)
    if info is None:
        return None, None
    if not stat.S_ISDIR(info.st_mode):
        raise RelocateError("%s exists and is %s, not made by this relocation; it is left alone (links are never "
                            "followed in the store): move it away or choose another vllm_model_name"
                            % (target, "a link" if stat.S_ISLNK(info.st_mode) else "not a folder"))
    fd = os.open(name, _DIR, dir_fd=store_fd)
    manifest = _read_json_at(fd, MANIFEST)
    if manifest is None or not isinstance(manifest.get("files"), dict):
        _close(fd)
        raise RelocateError("%s exists and was not made by this relocation (no %s); it is left alone: move it "
                            "away or choose another vllm_model_name" % (target, MANIFEST))
    return fd, manifest


def relocate(src, store, name, mode="copy", verify="quick", check_mode=False, progress=None,
             check_free=True, free=None):
    """Copy (or move) the model folder ``src`` to ``store/name``, verified; see the module doc.

    Returns ``{"path", "relocated", "changed", "copied_files", "copied_bytes", "reused_files",
    "verified_files", "verified_bytes", "total_bytes", "manifest", "source", "removed_source"}``.
    Raises RelocateError with the reason; the source is intact whenever it raises."""
    if mode not in ("copy", "move"):
        raise RelocateError("mode is %r; accepted: copy, move" % mode)
    paths = plan(src, store, name)
    fds = []
    try:
        return _relocate(paths, store, name, mode, verify, check_mode, progress, check_free, free, fds)
    finally:
        for fd in fds:
            _close(fd)


def _relocate(paths, store, name, mode, verify, check_mode, progress, check_free, free, fds):
    source, target = paths["source"], paths["target"]
    partial_name = "." + name + ".partial"
    full = verify == "full"
    result = {"path": target, "relocated": False, "changed": False, "copied_files": 0, "copied_bytes": 0,
              "reused_files": 0, "verified_files": 0, "verified_bytes": 0, "total_bytes": 0,
              "manifest": paths["manifest"], "source": source, "removed_source": False}
    store_fd = open_store(store, create=False)
    fds.append(store_fd)
    target_fd, manifest = _target_state(store_fd, name, target)
    fds.append(target_fd)
    if not os.path.isdir(source):
        if manifest and all(_target_matches(target_fd, rel, entry, full) for rel, entry in manifest["files"].items()):
            result.update(verified_files=len(manifest["files"]), total_bytes=manifest.get("total_bytes", 0),
                          verified_bytes=manifest.get("total_bytes", 0) if full else 0)
            return result  # moved earlier: the copy is all there is
        raise RelocateError("the model source %s does not exist" % source)
    bound = source_bound(source)
    files = list_files(source, bound)
    bound_fd = os.open(os.path.realpath(bound), _DIR)
    fds.append(bound_fd)
    total = sum(info["size"] for info in files.values())
    result["total_bytes"] = total

    # 1. a finished copy: verify cheaply, copy nothing
    good = {}
    if manifest and manifest.get("source") == source:
        for rel, entry in manifest["files"].items():
            info = files.get(rel)
            if info and _same_source(entry, info):
                have = _target_matches(target_fd, rel, entry, full)
                if have is not None:
                    good[rel] = (entry, have)
        if set(good) == set(files):
            result.update(verified_files=len(good), verified_bytes=total if full else 0)
            if mode == "move":
                if not check_mode:
                    _check_before_removing(bound_fd, target_fd, target, files, {})
                _remove_source(source, bound, files, result, check_mode)
            return result
    result["changed"] = result["relocated"] = True
    if check_mode:
        result["copied_files"] = len(files) - len(good)
        result["copied_bytes"] = sum(files[r]["size"] for r in files if r not in good)
        return result

    # 2. resume what an interrupted run left, reuse what the old copy has right; check the space
    if store_fd is None:
        store_fd = open_store(store, create=True)
        fds.append(store_fd)
    partial_info = _lstat_at(store_fd, partial_name)
    partial_fd = None
    if partial_info is not None and stat.S_ISDIR(partial_info.st_mode):
        partial_fd = os.open(partial_name, _DIR, dir_fd=store_fd)
        fds.append(partial_fd)
    journal = _parse_journal(_read_at(partial_fd, JOURNAL)) if partial_fd is not None else {}
    if partial_fd is not None:  # what the plan does not hold would land in the copy: removed
        _prune(partial_fd, "", set(files) | set([JOURNAL]), _folders_of(files))
    if any(entry.get("source") != source for entry in journal.values()):
        journal = {}
    done, reuse, hashed = {}, [], {}
    for rel, info in files.items():
        entry = journal.get(rel)
        if entry and partial_fd is not None and _same_source(entry, info) and \
                _target_matches(partial_fd, rel, dict(entry, size=info["size"]), True) is not None:
            done[rel] = entry
            result["verified_files"] += 1
            result["verified_bytes"] += info["size"]
        elif rel in good:
            reuse.append(rel)
    todo = sorted(rel for rel in files if rel not in done and rel not in reuse)
    needed = sum(files[rel]["size"] for rel in todo)
    if check_free:
        # a half-written file of the interrupted run is replaced: its space is not lost
        held = sum(_held_bytes(partial_fd, rel) for rel in todo) if partial_fd is not None else 0
        available = (os.fstatvfs(store_fd).f_bavail * os.fstatvfs(store_fd).f_frsize) if free is None else free
        check_space(os.path.abspath(store), max(0, needed - held), available)
    if partial_fd is None:
        partial_fd = _open_dir(store_fd, partial_name, create=True, replace=True, where=store)
        fds.append(partial_fd)
    # the journal is written anew (never appended to through a link or a foreign file)
    _unlink_at(partial_fd, JOURNAL)
    journal_fd = os.open(JOURNAL, _NEW | os.O_APPEND, 0o644, dir_fd=partial_fd)
    fds.append(journal_fd)
    for entry in done.values():
        _journal_line(journal_fd, entry)
    for rel in reuse:
        entry, have = good[rel]
        src_dir, src_name = _open_parent(target_fd, rel)
        dst_dir, dst_name = _open_parent(partial_fd, rel, create=True, replace=True, where=paths["partial"])
        try:
            _unlink_at(dst_dir, dst_name)
            # same filesystem: the verified old copy, no bytes copied
            os.link(src_name, dst_name, src_dir_fd=src_dir, dst_dir_fd=dst_dir, follow_symlinks=False)
            linked = _lstat_at(dst_dir, dst_name)
            if linked is None or not stat.S_ISREG(linked.st_mode) or not _same_file(linked, have):
                raise RelocateError("%s changed while it was being reused; refused" % os.path.join(target, rel))
        finally:
            _close(src_dir)
            _close(dst_dir)
        entry = dict(entry, path=rel, source=source)
        _journal_line(journal_fd, entry)
        done[rel] = entry
    result["reused_files"] = len(done)

    # 3. copy and verify the rest
    meter = Progress(needed, progress)
    for rel in todo:
        info = files[rel]
        meter.current = rel
        dst_dir, dst_name = _open_parent(partial_fd, rel, create=True, replace=True, where=paths["partial"])
        try:
            digest, copied = copy_verified(bound_fd, info, dst_dir, dst_name, meter.add)
        finally:
            _close(dst_dir)
        hashed[rel] = digest
        entry = {"path": rel, "source": source, "size": info["size"], "mtime_ns": info["mtime_ns"],
                 "sha256": digest, "target_mtime_ns": copied.st_mtime_ns}
        _journal_line(journal_fd, entry)
        done[rel] = entry
        result["copied_files"] += 1
        result["copied_bytes"] += info["size"]
        result["verified_files"] += 1
        result["verified_bytes"] += info["size"]
    meter.finish()

    # 4. every file verified: manifest, then one rename
    for rel, entry in done.items():
        fd, info = _open_file(partial_fd, rel, where=paths["partial"])
        _close(fd)
        if info.st_size != entry["size"]:
            raise RelocateError("%s changed in the partial folder; nothing was switched" % rel)
        entry["target_mtime_ns"] = info.st_mtime_ns
    new_manifest = {"source": source, "name": name, "total_bytes": total, "created": int(time.time()),
                    "files": dict((rel, dict((k, v) for k, v in entry.items() if k not in ("path", "source")))
                                  for rel, entry in done.items())}
    _write_json_at(partial_fd, MANIFEST, new_manifest)
    _unlink_at(partial_fd, JOURNAL)
    _fsync_fd(partial_fd)
    old = None
    if target_fd is not None:
        old = "." + name + ".old"
        _unlink_at(store_fd, old)
        os.rename(name, old, src_dir_fd=store_fd, dst_dir_fd=store_fd)
    elif _lstat_at(store_fd, name) is not None:
        raise RelocateError("%s appeared while copying; it is left alone and nothing was switched" % target)
    now = _lstat_at(store_fd, partial_name)
    if now is None or not _same_file(now, os.fstat(partial_fd)):
        raise RelocateError("%s was replaced while copying; nothing was switched" % paths["partial"])
    os.rename(partial_name, name, src_dir_fd=store_fd, dst_dir_fd=store_fd)
    _fsync_fd(store_fd)
    if old:
        _unlink_at(store_fd, old)
    if mode == "move":
        _check_before_removing(bound_fd, partial_fd, target, files, hashed)  # partial_fd is the copy now
        _remove_source(source, bound, files, result, check_mode)
    return result


def _check_before_removing(bound_fd, copy_fd, target, files, hashed):
    """Before ``move`` removes the source: every file this run did not copy itself (reused from
    an earlier copy or an interrupted run, trusted from a manifest or journal in a store another
    user may write) must hash in the copy as the source does now; else the source is kept."""
    for rel in sorted(files):
        if rel in hashed:
            continue
        source_fd, _ = _open_source(bound_fd, files[rel])
        try:
            wanted = _sha256_fd(source_fd)
        finally:
            _close(source_fd)
        try:
            fd, _ = _open_file(copy_fd, rel)
        except (OSError, RelocateError):
            fd = None
        try:
            have = _sha256_fd(fd) if fd is not None else None
        finally:
            _close(fd)
        if have != wanted:
            raise RelocateError("%s does not hold what the source holds (sha256 of %s); the source is kept (move "
                                "not done): remove the copy and run again" % (os.path.join(target, rel), rel))


def _folders_of(files):
    folders = set()
    for rel in files:
        parts = rel.split("/")[:-1]
        for index in range(1, len(parts) + 1):
            folders.add("/".join(parts[:index]))
    return folders


def _prune(dir_fd, prefix, wanted, folders):
    """Remove from the partial folder every entry that is not a planned file or a folder on the
    way to one (a stale file, a link, a FIFO); never through a link."""
    for entry in list(os.scandir(dir_fd)):
        rel = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if rel in folders:
                fd = os.open(entry.name, _DIR, dir_fd=dir_fd)
                try:
                    _prune(fd, rel + "/", wanted, folders)
                finally:
                    _close(fd)
            else:
                _rmtree_at(dir_fd, entry.name)
        elif rel not in wanted or not entry.is_file(follow_symlinks=False):
            _unlink_at(dir_fd, entry.name)


def _remove_source(source, bound, files, result, check_mode):
    """After a verified switch: remove the source files (for a Hugging Face snapshot, the links and
    the blobs no other snapshot points to), then the folders left empty. Every name is removed
    through its folder's descriptor, never through a link, and only when it is still the file
    that was verified."""
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
    real_bound = os.path.realpath(bound)
    bound_fd = os.open(real_bound, _DIR)
    try:
        source_inner = os.path.relpath(os.path.realpath(source), real_bound)
        for rel, info in files.items():
            inner = rel if source_inner == "." else os.path.join(source_inner, rel)
            try:
                parent, name = _open_parent(bound_fd, inner)
            except (OSError, RelocateError):
                continue
            try:
                now = _lstat_at(parent, name)
                if now is not None and (stat.S_ISLNK(now.st_mode) or
                                        (now.st_dev, now.st_ino) == (info["dev"], info["ino"])):
                    os.unlink(name, dir_fd=parent)
            finally:
                _close(parent)
            blobs = os.path.join(os.path.realpath(repo), "blobs") if repo else None
            if blobs and info["src"] not in keep and info["src"].startswith(blobs + os.sep):
                try:
                    parent, name = _open_parent(bound_fd, info["inner"])
                except (OSError, RelocateError):
                    continue
                try:
                    now = _lstat_at(parent, name)
                    if now is not None and (now.st_dev, now.st_ino) == (info["dev"], info["ino"]):
                        os.unlink(name, dir_fd=parent)
                finally:
                    _close(parent)
        # the folders left empty, through descriptors (a folder swapped for a link is not entered)
        try:
            source_fd = os.open(source_inner, _DIR, dir_fd=bound_fd) if source_inner != "." else os.dup(bound_fd)
        except OSError:
            source_fd = None
        if source_fd is not None:
            try:
                _rmdir_empty(source_fd)
            finally:
                _close(source_fd)
    finally:
        _close(bound_fd)
    try:
        os.rmdir(source)
    except OSError:
        pass


def _rmdir_empty(dir_fd):
    """Remove the empty folders under ``dir_fd``, bottom up, never following a link."""
    for entry in list(os.scandir(dir_fd)):
        if entry.is_dir(follow_symlinks=False):
            try:
                fd = os.open(entry.name, _DIR, dir_fd=dir_fd)
            except OSError:
                continue
            try:
                _rmdir_empty(fd)
            finally:
                _close(fd)
            try:
                os.rmdir(entry.name, dir_fd=dir_fd)
            except OSError:
                pass


def _hf_repo_of(source):
    parent = os.path.dirname(os.path.abspath(source))
    if os.path.basename(parent) == "snapshots" and os.path.basename(os.path.dirname(parent)).startswith("models--"):
        return os.path.dirname(parent)
    return None
