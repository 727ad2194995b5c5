#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Download one lock file's wheels once into a wheelhouse, for one wheel target."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_wheelhouse
short_description: Download a lock file's wheels into a wheelhouse folder, once
description:
  - Writes the lock file into O(path) as C(requirements.lock) and runs C(pip download) of exactly
    those files for one wheel target (O(pip_args), from the C(vllm_wheelhouse_jobs) filter).
  - A finished download leaves C(.complete-<key>.json) beside the wheels (the lock's sha256, the
    pip arguments, every file with its size). While that record matches and every file is there
    with its size, pip is not run again.
  - With O(archive=true) the job's files are also packed into one uncompressed tar
    (C(wheels-<key>-<manifest>.tar)), so that a host receives them in one transfer; older
    archives of the same job are removed.
  - Check mode reports whether a download would run and changes nothing.
options:
  path: {description: The lock file's folder in the wheelhouse (named by its sha256)., type: path, required: true}
  lock: {description: The lock file's text., type: str, required: true}
  pip_args:
    description: The target and source options of C(pip download) (C(--no-deps), C(--platform) ...).
    type: list
    elements: str
    default: []
  python: {description: The Python whose pip downloads., type: path, required: true}
  archive: {description: Also pack the job's files into one tar., type: bool, default: false}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Download the lock's wheels for a CPython 3.11 x86_64 host
  vllm_wheelhouse:
    path: /srv/wheelhouse/3f2a...
    lock: "{{ lock_text }}"
    python: /usr/bin/python3
    pip_args: [--no-deps, "--only-binary=:all:", --implementation, cp, --python-version, "311",
               --abi, cp311, --platform, manylinux_2_36_x86_64]
    archive: true
"""

RETURN = r"""
sha256: {description: The lock file's sha256 (the folder's name)., returned: always, type: str}
key: {description: The job's key (a hash of its pip arguments)., returned: always, type: str}
downloaded: {description: Whether pip ran (false when the record showed the download complete)., returned: always, type: bool}
saved: {description: Files pip fetched in this run., returned: always, type: list}
files: {description: "Every file of the job, with its size in bytes: {name: size}.", returned: unless check mode skipped the download, type: dict}
count: {description: How many files., returned: always, type: int}
bytes: {description: Their total size., returned: always, type: int}
archive: {description: The tar holding the job's files (archive=true)., returned: when archive, type: str}
cmd: {description: The pip command (run or that would run)., returned: always, type: list}
stdout: {description: "pip's output, when it ran.", returned: always, type: str}
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_common import atomic_write
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_wheelhouse import (
    LOCK_NAME, WheelhouseError, archive_name, job_key, lock_sha256, manifest, pip_files,
    read_marker, write_archive, write_marker)


def _write_lock(path, text):
    """Write requirements.lock when it differs; True when it changed."""
    lock_path = os.path.join(path, LOCK_NAME)
    try:
        with open(lock_path, encoding="utf-8") as handle:
            if handle.read() == text:
                return False
    except OSError:
        pass
    atomic_write(lock_path, text, chmod=0o644)
    return True


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            lock=dict(type="str", required=True),
            pip_args=dict(type="list", elements="str", default=[]),
            python=dict(type="path", required=True),
            archive=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    path, lock, pip_args = module.params["path"], module.params["lock"], module.params["pip_args"]
    if not lock.strip():
        module.fail_json(msg="vllm_wheelhouse: the lock file for %s is empty" % path)
    sha, key = lock_sha256(lock), job_key(pip_args)
    cmd = [module.params["python"], "-m", "pip", "download", "--progress-bar", "off",
           "--disable-pip-version-check", "--dest", path, "--requirement", os.path.join(path, LOCK_NAME)]
    cmd += pip_args
    result = dict(changed=False, sha256=sha, key=key, downloaded=False, saved=[], cmd=cmd, stdout="",
                  count=0, bytes=0)

    files = read_marker(path, key, sha, pip_args) if os.path.isdir(path) else None
    if files is None and module.check_mode:
        result.update(changed=True, downloaded=True)
        module.exit_json(**result)

    if files is None:
        if not os.path.isdir(path):
            os.makedirs(path, 0o755)
            result["changed"] = True
        result["changed"] |= _write_lock(path, lock)
        rc, out, err = module.run_command(cmd)
        result.update(downloaded=True, stdout=out)
        if rc != 0:
            module.fail_json(msg="pip download failed (exit %d) for the lock in %s: %s"
                             % (rc, path, (err or out)[-3000:]), rc=rc, stderr=err, **result)
        saved, every = pip_files(out)
        if not every:
            module.fail_json(msg="pip download named no file for the lock in %s" % path, **result)
        try:
            files = manifest(path, every)
        except WheelhouseError as exc:
            module.fail_json(msg=str(exc), **result)
        write_marker(path, key, sha, pip_args, files)
        result["saved"] = saved
        result["changed"] |= bool(saved)
    elif not module.check_mode:
        result["changed"] |= _write_lock(path, lock)

    result.update(files=files, count=len(files), bytes=sum(files.values()))
    if module.params["archive"]:
        if module.check_mode:
            result["archive"] = os.path.join(path, archive_name(key, files))
        else:
            result["archive"], created = write_archive(path, key, files)
            result["changed"] |= created
    module.exit_json(**result)


if __name__ == "__main__":
    main()
