#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model preflight: refuse a model the server would fail on, before the server sees it."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_model_preflight
short_description: Check a model folder against the installed vLLM and the host before serving it
description:
  - C(config.json) present and parseable; its architectures known to the installed vLLM (the list
    the venv's C(ModelRegistry) printed, O(archs_file)) or custom code that needs C(trust_remote_code).
  - The tokenizer files the folder implies; every shard of C(model.safetensors.index.json) present;
    every safetensors header parsed and every tensor's byte range inside its file (a truncated
    download fails here).
  - The weights against GPU memory (CUDA) or RAM (CPU), with the numbers; refused when they cannot
    fit at all, a warning when only a small KV cache would remain.
  - Read-only; runs in check mode too. Fails with one line per problem and what to do.
options:
  path: {description: The model folder., type: path, required: true}
  archs_file:
    description:
      - JSON written by the release venv, an object with the keys C(vllm) and C(transformers) - the architectures
        the installed vLLM implements and the model classes its transformers has (served through
        vLLM's Transformers backend); a plain list is vLLM's alone. Missing means not checked.
    type: path
  vllm_label: {description: How to name the installed vLLM in messages., type: str, default: vLLM}
  backend: {description: C(cuda) or C(cpu); empty skips the size check., type: str, default: ""}
  host: {description: "The C(vllm_host) fact (GPUs, RAM).", type: dict, default: {}}
  options: {description: The user's C(vllm_service_options)., type: dict, default: {}}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Check the model before the service sees it
  vllm_model_preflight:
    path: /var/lib/vllm/models/hub/Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca
    archs_file: /opt/vllm/releases/vllm-0.33.0-py3.12-cu130/vllm-archs.json
    backend: cuda
    host: "{{ vllm_host }}"
    options: "{{ vllm_service_options }}"
"""

RETURN = r"""
ok: {description: Whether the model passed., returned: always, type: bool}
errors: {description: "One line per problem, with what to do.", returned: always, type: list}
warnings_list: {description: What passed with a caveat., returned: always, type: list}
facts:
  description: >-
    architectures, model_type, weights_format, weight_files, weights_bytes (the model's measured size,
    which the service sizes with), tensors, folder_bytes (the folder on disk, symlinks followed), fit.
  returned: always
  type: dict
archs_checked: {description: Whether the architecture list of the installed vLLM was available., returned: always, type: bool}
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_model_check import check_model


def read_archs(path):
    """``(vllm's architectures, transformers' model classes)``; None for what is not there (yet)."""
    if not path or not os.path.isfile(path):
        return None, None
    with open(path, encoding="utf-8") as handle:
        archs = json.load(handle)
    if isinstance(archs, dict):
        return (sorted(archs.get("vllm") or []) or None), (sorted(archs.get("transformers") or []) or None)
    return (sorted(archs) if isinstance(archs, list) and archs else None), None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            archs_file=dict(type="path"),
            vllm_label=dict(type="str", default="vLLM"),
            backend=dict(type="str", default=""),
            host=dict(type="dict", default={}),
            options=dict(type="dict", default={}),
        ),
        supports_check_mode=True,
    )
    p = module.params
    try:
        archs, transformers_archs = read_archs(p["archs_file"])
    except (IOError, OSError, ValueError) as err:
        module.fail_json(msg="cannot read the installed vLLM's architecture list %s: %s; delete it and run "
                             "again" % (p["archs_file"], err))
    result = check_model(p["path"], archs, p["backend"] or None, p["host"], p["options"], p["vllm_label"],
                         transformers_archs)
    warnings = list(result["warnings"])
    if archs is None:
        warnings.append("the installed vLLM's architecture list is not there yet (check mode on a new host): "
                        "the architecture was not checked")
    out = dict(ok=result["ok"], errors=result["errors"], warnings_list=warnings, facts=result["facts"],
               archs_checked=archs is not None, changed=False)
    if not result["ok"]:
        module.fail_json(msg="The model in %s did not pass the preflight; nothing was rendered or restarted, "
                             "the server keeps its current model:\n- %s"
                             % (p["path"], "\n- ".join(result["errors"])), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
