#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set keys in a WSL INI file (.wslconfig, /etc/wsl.conf), changing only the lines that must change."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_wslconfig
short_description: Set keys in .wslconfig or /etc/wsl.conf, keeping every other line as it was
description:
  - Edits a WSL INI file line by line - comments, key order, key casing, sections, each line's
    ending (CRLF or LF) and a UTF-8 BOM stay as they were; keys are matched case-insensitively, as WSL does.
  - A UTF-16 file (Windows ignores it silently) is reported and rewritten as UTF-8.
  - Before the first change the original is copied to C(FILE.vllm-backup) (a new file, never
    written through a link) and read back; the new content is written beside the file and renamed over it.
  - Only a regular file of at most 1 MiB is read (a FIFO or device is refused). A linked O(path) is
    edited in place when its target is a regular file owned by the link's owner (the link stays,
    the backup lies beside the target); any other link is refused, naming it.
  - Sizes are whole numbers with a unit - memory from 1GB up to O(windows_memory), swap 0 or from
    1GB; an error names the role variable (C(vllm_wsl_memory), C(vllm_wsl_swap)), the value and what is accepted.
  - O(memory) and O(swap) in C([wsl2]) follow the rule in C(vllm_wslconfig.plan_memory) (C(auto))
    or are set exactly (a size). Values that already hold are left alone.
  - Supports check mode and diff mode.
options:
  path: {description: The file., type: path, required: true}
  settings:
    description: C(SECTION.KEY) to value, set exactly (C(true)/C(false) compared case-insensitively).
    type: dict
    default: {}
  settings_if_absent:
    description:
      - C(SECTION.KEY) to value, set only where the file lacks the key; a value already there is kept
        and named in a warning (e.g. C(boot.command), which WSL takes once).
    type: dict
    default: {}
  memory:
    description: C(auto) (the rule), a size such as C(16GB), or empty to leave C(memory) alone.
    type: str
    default: ""
  swap:
    description: C(auto) (the rule), a size such as C(8GB) or C(0), or empty to leave C(swap) alone.
    type: str
    default: ""
  windows_memory:
    description: Windows' RAM (a size or bytes) for the rule; empty when unknown.
    type: str
    default: ""
  model_bytes: {description: Size of the model for the rule., type: int, default: 0}
  overhead: {description: "Runtime memory besides the model, for the rule.", type: str, default: 4GB}
  backup: {description: Keep a verified copy of the original before the first change., type: bool, default: true}
  create: {description: Create the file when it does not exist., type: bool, default: true}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Size the WSL VM for the model
  vllm_wslconfig:
    path: /mnt/c/Users/me/.wslconfig
    memory: auto
    swap: auto
    windows_memory: 34359738368
    model_bytes: 16106127360

- name: Enable systemd in the distro
  vllm_wslconfig:
    path: /etc/wsl.conf
    settings: {boot.systemd: "true"}
"""

RETURN = r"""
changes: {description: "Keys changed or added, with old and new values.", returned: always, type: list}
backup_file: {description: The backup written before the change., returned: changed, type: str}
converted_from: {description: The file's encoding when it was UTF-16 and rewritten as UTF-8., returned: always, type: str}
real_path: {description: The file edited (the link's target when O(path) is a link)., returned: always, type: str}
reasons: {description: Why memory and swap have the values they have., returned: always, type: list}
warnings_rule: {description: What the memory rule could not do., returned: always, type: list}
"""


from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_wslconfig import (
    WslConfigError,
    decode,
    edit,
    plan_memory,
    read_config,
    user_size,
    write_file,
    Document,
)


def build_settings(params, doc):
    settings, reasons, warnings = [], [], []
    for name, value in sorted(params["settings"].items()):
        if "." not in name:
            raise WslConfigError("settings key %r: expected SECTION.KEY, e.g. boot.systemd" % name)
        section, key = name.rsplit(".", 1)
        if isinstance(value, bool):
            value = "true" if value else "false"
        settings.append({"section": section, "key": key, "value": str(value), "compare": "equal"})
    for name, value in sorted(params["settings_if_absent"].items()):
        if "." not in name:
            raise WslConfigError("settings_if_absent key %r: expected SECTION.KEY, e.g. boot.command" % name)
        section, key = name.rsplit(".", 1)
        current = doc.get(section, key)
        if current is not None and current.strip() != str(value):
            warnings.append("[%s] %s is already %r in the file: left as it is, so it does not run %r"
                            % (section, key, current.strip(), str(value)))
        settings.append({"section": section, "key": key, "value": str(value), "compare": "if_absent"})
    memory, swap = params["memory"].strip(), params["swap"].strip()
    if memory or swap:
        ram = user_size("windows_memory", params["windows_memory"]) if params["windows_memory"].strip() else None
        decision = plan_memory(ram, params["model_bytes"], doc.get("wsl2", "memory"), doc.get("wsl2", "swap"),
                               overhead_bytes=user_size("overhead", params["overhead"]),
                               memory=None if memory.lower() in ("", "auto") else memory,
                               swap=None if swap.lower() in ("", "auto") else swap)
        wanted = set(k for k, v in (("memory", memory), ("swap", swap)) if v)
        for item in decision["settings"]:
            if item["key"] in wanted:
                settings.append(item)
                reasons.append(item["reason"])
        warnings = warnings + decision["warnings"]
    return settings, reasons, warnings


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            settings=dict(type="dict", default={}),
            settings_if_absent=dict(type="dict", default={}),
            memory=dict(type="str", default=""),
            swap=dict(type="str", default=""),
            windows_memory=dict(type="str", default=""),
            model_bytes=dict(type="int", default=0),
            overhead=dict(type="str", default="4GB"),
            backup=dict(type="bool", default=True),
            create=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    path = module.params["path"]
    try:
        raw, real = read_config(path)  # a regular file only, at most 1 MiB; a link is resolved, never replaced
    except (WslConfigError, IOError, OSError) as exc:
        module.fail_json(msg="%s: %s; nothing was changed" % (path, exc))
    if raw is None and not module.params["create"]:
        module.fail_json(msg="%s does not exist (create is false)" % path)
    try:
        doc = Document.from_bytes(raw) if raw is not None else Document("")
        settings, reasons, rule_warnings = build_settings(module.params, doc)
        result = edit(raw, settings, path)
    except WslConfigError as exc:
        module.fail_json(msg="%s: %s; nothing was changed" % (path, exc))
    for warning in rule_warnings:
        module.warn(warning)
    before = decode(raw)[0] if raw is not None else ""
    after = decode(result["after"])[0] if result["after"] is not None else ""
    changes = [dict((k, c[k]) for k in ("section", "key", "old", "new")) for c in result["changes"]]
    out = dict(changed=result["changed"], path=path, real_path=real, changes=changes,
               converted_from=result["encoding"] if result["converted"] else "", reasons=reasons,
               warnings_rule=rule_warnings,
               diff={"before": before, "after": after, "before_header": path, "after_header": path})
    if result["converted"]:
        module.warn("%s was saved as %s, which Windows ignores without a word; it is rewritten as UTF-8 (the original "
                    "is kept as a backup)" % (path, result["encoding"].upper()))
    if result["changed"] and not module.check_mode:
        try:
            out["backup_file"] = write_file(real, result, backup=module.params["backup"]) or ""
        except (WslConfigError, IOError, OSError) as exc:
            module.fail_json(msg="writing %s failed: %s; the file is as it was" % (path, exc))
    module.exit_json(**out)


if __name__ == "__main__":
    main()
