# -*- coding: utf-8 -*-
"""Where a Hugging Face Hub model lives in the store, and what to fetch. Pure standard library.

Layout under ``<store>/hub/<org>--<name>/``:

- ``snapshots/<commit>/``: one folder per resolved commit, filled by huggingface_hub in
  ``local_dir`` mode (its own metadata under ``.cache/huggingface/`` inside). A new revision is a
  new folder, so the running server's files are never overwritten while it reads them.
- ``refs/<revision>``: the commit a branch or tag resolved to (``/`` in a name becomes ``%2F``).
  A rerun with a recorded ref needs no network; ``refresh`` asks the Hub again.
- ``snapshots/<commit>/.vllm-download.json``: written once every selected file is in place
  (repo, revision, commit, file sizes). A snapshot without it is an unfinished download.
"""
from __future__ import absolute_import, division, print_function

import fnmatch
import json
import os
import re

from .vllm_common import atomic_write, json_text

__metaclass__ = type

# Hub repository ids: "org/name"; letters, digits, '-', '_', '.'; no '--' or '..'; 96 characters.
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
MARKER = ".vllm-download.json"
# When a repository has safetensors weights, these other weight formats are not fetched (vLLM loads
# the safetensors; Llama-style repos also carry the original checkpoint under original/).
OTHER_WEIGHTS = ("*.bin", "*.pt", "*.pth", "*.ckpt", "*.h5", "*.msgpack", "*.onnx", "*.ot", "*.gguf",
                 "original/*", "consolidated*.safetensors")


def is_repo_id(value):
    """``org/name`` as the Hub accepts it (not a path: no leading '/', no '..' or '--')."""
    return (isinstance(value, str) and bool(REPO_ID.match(value))
            and ".." not in value and "--" not in value and not value.endswith((".git", ".ipynb")))


def is_commit(revision):
    return isinstance(revision, str) and bool(COMMIT.match(revision))


def repo_dir(store, repo_id):
    return os.path.join(store, "hub", repo_id.replace("/", "--"))


def snapshot_dir(store, repo_id, commit):
    return os.path.join(repo_dir(store, repo_id), "snapshots", commit)


def ref_file(store, repo_id, revision):
    return os.path.join(repo_dir(store, repo_id), "refs", revision.replace("/", "%2F"))


def read_ref(store, repo_id, revision):
    """The commit recorded for a branch or tag, or None."""
    try:
        with open(ref_file(store, repo_id, revision), encoding="utf-8") as handle:
            commit = handle.read().strip()
    except (IOError, OSError):
        return None
    return commit if is_commit(commit) else None


def write_ref(store, repo_id, revision, commit):
    """Record (atomically) what a branch or tag resolved to; True when it changed."""
    if is_commit(revision) or read_ref(store, repo_id, revision) == commit:
        return False
    path = ref_file(store, repo_id, revision)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    atomic_write(path, commit + "\n")
    return True


def read_marker(snapshot):
    try:
        with open(os.path.join(snapshot, MARKER), encoding="utf-8") as handle:
            data = json.load(handle)
    except (IOError, OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def snapshot_complete(snapshot):
    """``(complete, problem)``: the marker is there and every file it lists has its size."""
    marker = read_marker(snapshot)
    if marker is None:
        return False, "no finished download in %s" % snapshot
    for name, size in sorted((marker.get("files") or {}).items()):
        path = os.path.join(snapshot, name)
        if not os.path.isfile(path):
            return False, "%s is missing" % path
        if size is not None and os.path.getsize(path) != size:
            return False, "%s is %d bytes, %d expected" % (path, os.path.getsize(path), size)
    return True, None


def write_marker(snapshot, repo_id, revision, commit, files):
    data = {"repo_id": repo_id, "revision": revision, "commit": commit,
            "files": dict((name, files[name]) for name in sorted(files))}
    atomic_write(os.path.join(snapshot, MARKER), json_text(data, indent=2, sort_keys=True))


def select_files(names):
    """The repository files to fetch: all of them, less other weight formats when safetensors exist."""
    names = sorted(names)
    if not any(n.endswith(".safetensors") and not fnmatch.fnmatch(n, "consolidated*.safetensors")
               for n in names):
        return names
    return [n for n in names if not any(fnmatch.fnmatch(n, p) for p in OTHER_WEIGHTS)]


def plan(store, repo_id, revision, refresh=False):
    """What a run has to do, without the network.

    Returns ``{"commit": known commit or None, "snapshot": folder or None, "complete": bool,
    "network": bool, "reason": str}``: a commit revision or a recorded ref (unless ``refresh``)
    gives the commit; a complete snapshot of it needs no network at all.
    """
    commit = revision if is_commit(revision) else (None if refresh else read_ref(store, repo_id, revision))
    if commit is None:
        why = ("refresh: ask the Hub what %s points to now" % revision) if refresh else \
            ("%s has not been resolved on this host yet" % revision)
        return {"commit": None, "snapshot": None, "complete": False, "network": True, "reason": why}
    snapshot = snapshot_dir(store, repo_id, commit)
    complete, problem = snapshot_complete(snapshot)
    return {"commit": commit, "snapshot": snapshot, "complete": complete, "network": not complete,
            "reason": ("commit %s is in the store" % commit) if complete else problem}
