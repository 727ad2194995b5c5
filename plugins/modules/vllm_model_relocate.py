#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Copy a model off a Windows drive (WSL) into the native-filesystem model store, verified."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_model_relocate
short_description: Relocate a model folder from a Windows drive into the native model store, verified
description:
  - Decides from the mount table (C(/proc/self/mounts)) whether O(src) lives on a Windows drive
    (9p/drvfs/v9fs, C(aname=drvfs), a C(C:\) source). When it does (or O(force) is set), copies it to
    O(store)/O(name) through a temporary folder beside the target, verifying every file's size and
    sha256 against the source, and switches the folder into place with one rename.
  - Resumes an interrupted copy without copying finished files again; a manifest lets the next run
    verify cheaply and copy nothing. O(mode=move) removes the source only after verification.
  - Hugging Face cache layouts (C(models--org--name) or its C(snapshots/<rev>)) are copied as a plain
    folder of real files.
  - Refuses links that leave the model folder (the repository folder for a Hugging Face cache),
    links to folders, FIFOs, sockets and devices; copies keep the source's permission bits, never
    wider; no link in the store is ever followed (see C(vllm_relocate)).
  - Supports check mode (reports what would be copied). O(probe=true) never changes anything and
    reports whether a copy is needed, for a role that then runs the copy C(async).
options:
  src: {description: The model folder (or Hugging Face cache repo)., type: path, required: true}
  store: {description: The model store on the native filesystem., type: path, required: true}
  name:
    description: Folder name of the copy in the store; empty - C(org--name) for a Hugging Face cache, else the folder's name.
    type: str
    default: ""
  mode:
    description: C(copy) keeps the source; C(move) removes it after the copy is verified.
    type: str
    choices: [copy, move]
    default: copy
  verify:
    description: How a finished copy is checked on later runs; C(full) re-hashes every file.
    type: str
    choices: [quick, full]
    default: quick
  fstypes:
    description: Filesystem types that count as Windows drives.
    type: list
    elements: str
    default: [9p, drvfs, v9fs]
  force: {description: Relocate even when O(src) is not on a Windows drive., type: bool, default: false}
  probe: {description: Only report whether a copy is needed; change nothing., type: bool, default: false}
  progress_file:
    description: A file rewritten every few seconds with one line of progress, then C(done ...) or C(failed ...).
    type: path
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Relocate a model that sits on C:\
  vllm_model_relocate:
    src: /mnt/c/Users/me/models/Qwen3-8B
    store: /var/lib/vllm/models
    name: Qwen3-8B
    progress_file: /run/vllm-relocate.progress
  async: 7200
  poll: 0
"""

RETURN = r"""
path: {description: "The folder to serve (the copy when relocated, else O(src)).", returned: always, type: str}
on_windows_drive: {description: Whether O(src) is on a Windows drive., returned: always, type: bool}
mount: {description: "The mount holding O(src) (source, mountpoint, fstype).", returned: always, type: dict}
relocated: {description: Whether the model is (now) served from the store., returned: always, type: bool}
needed: {description: Whether files must be copied (or the source removed)., returned: always, type: bool}
copied_files: {description: Files copied in this run., returned: always, type: int}
copied_bytes: {description: Bytes copied in this run., returned: always, type: int}
reused_files: {description: Files taken over from an interrupted run or an earlier copy., returned: always, type: int}
verified_files: {description: Files verified in this run., returned: always, type: int}
total_bytes: {description: Size of the model., returned: always, type: int}
manifest: {description: The copy's manifest file., returned: always, type: str}
removed_source: {description: Whether the source was removed (move)., returned: always, type: bool}
elapsed_s: {description: Seconds the copy took., returned: always, type: float}
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_common import atomic_write
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_relocate import (
    MANIFEST,
    RelocateError,
    default_name,
    human,
    parse_mounts,
    relocate,
    windows_drive,
)


def progress_writer(path, started):
    def write(done, total, current):
        elapsed = max(time.time() - started, 0.001)
        line = "copied %s of %s (%d%%) at %s/s, %s" % (
            human(done), human(total), 100 * done // total if total else 100, human(done / elapsed), current)
        _write_line(path, line)
    return write


def _write_line(path, line):
    if not path:
        return
    # a new file (never written through a link), then one rename; rewritten often: no fsync
    atomic_write(path, line + "\n", mode=0o644, fsync=False)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path", required=True),
            store=dict(type="path", required=True),
            name=dict(type="str", default=""),
            mode=dict(type="str", choices=["copy", "move"], default="copy"),
            verify=dict(type="str", choices=["quick", "full"], default="quick"),
            fstypes=dict(type="list", elements="str", default=["9p", "drvfs", "v9fs"]),
            force=dict(type="bool", default=False),
            probe=dict(type="bool", default=False),
            progress_file=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    src = os.path.realpath(params["src"])
    with open("/proc/self/mounts") as handle:
        mounts = parse_mounts(handle.read())
    on_windows, mount = windows_drive(src, mounts, params["fstypes"])
    name = params["name"] or default_name(params["src"])
    target = os.path.join(params["store"], name)
    base = dict(on_windows_drive=on_windows, mount=mount or {}, copied_files=0, copied_bytes=0, reused_files=0,
                verified_files=0, total_bytes=0, manifest=os.path.join(target, MANIFEST), removed_source=False,
                elapsed_s=0.0)
    if not (on_windows or params["force"]):
        # a model already on the native filesystem is served where it is
        module.exit_json(changed=False, path=params["src"], relocated=False, needed=False, **base)

    started = time.time()
    progress = progress_writer(params["progress_file"], started)
    dry = params["probe"] or module.check_mode
    try:
        result = relocate(src, params["store"], name, mode=params["mode"], verify=params["verify"],
                          check_mode=dry, progress=progress)
    except RelocateError as exc:
        _write_line(params["progress_file"], "failed: %s" % exc)
        module.fail_json(msg=str(exc), path=params["src"], relocated=False, needed=True, **base)
    except (IOError, OSError) as exc:
        _write_line(params["progress_file"], "failed: %s" % exc)
        module.fail_json(msg="relocating %s to %s failed: %s; the source is intact" % (src, target, exc),
                         path=params["src"], relocated=False, needed=True, **base)
    elapsed = round(time.time() - started, 1)
    needed = bool(result["changed"])
    _write_line(params["progress_file"], "done: %d files copied (%s), %d reused, %d verified in %.1f s" % (
        result["copied_files"], human(result["copied_bytes"]), result["reused_files"], result["verified_files"],
        elapsed))
    base.update(dict((key, result[key]) for key in ("copied_files", "copied_bytes", "reused_files", "verified_files",
                                                     "total_bytes", "manifest", "removed_source")))
    base["elapsed_s"] = elapsed
    # in check mode and probes: where the model will be served once copied
    module.exit_json(changed=needed and not params["probe"], path=result["path"], relocated=True, needed=needed,
                     **base)


if __name__ == "__main__":
    main()
