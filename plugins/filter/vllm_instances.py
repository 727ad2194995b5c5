# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of several servers on one host (vllm_instances); the logic is module_utils' vllm_instances."""
from __future__ import absolute_import, division, print_function

import os
import sys

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm_instances
short_description: vLLM instances on one host (checks, plan, options, removals)
description:
  - C(vllm_instance_errors) lists what is wrong with vllm_instances (vllm_instances[i].field, the
    value, what is accepted).
  - C(vllm_instances_plan) is each instance's GPUs, memory share, environment (on the CPU backend, its own cores), unit and files.
  - C(vllm_instance_options) computes one instance's options with its share through the one
    sizing model; a model that cannot fit its share fails the task naming the instances and figures.
  - C(vllm_instance_url) is an instance's URL; C(vllm_instance_paths) its files;
    C(vllm_instance_gate_row) its line of the rollout from its readiness gate;
    C(vllm_instance_summary_line) its line of the summary; C(vllm_instances_restart_needed) the
    instances whose options' values or environment changed.
  - C(vllm_instances_to_remove) names the instances with files on the host that are no longer listed.
author: vLLM provisioner maintainers
"""

try:  # Ansible: the collection's module_utils
    from ansible_collections.vllm_ops.workstation.plugins.module_utils import vllm_instances, vllm_options, vllm_readiness
except ImportError:  # plain Python (scripts, tests)
    _PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if _PLUGINS not in sys.path:
        sys.path.insert(0, _PLUGINS)
    from module_utils import vllm_instances, vllm_options, vllm_readiness  # type: ignore  # noqa: E402  pylint: disable=import-error

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - plain Python
    AnsibleFilterError = ValueError


def vllm_instances_plan(instances, host, backend, config_dir, log_dir, default_model="builtin",
                        service_env=None):
    try:
        return vllm_instances.plan_instances(list(instances or []), host, backend, config_dir, log_dir,
                                             default_model, dict(service_env or {}))
    except vllm_options.OptionsError as err:
        raise AnsibleFilterError(str(err))


def vllm_instance_options(plan, model_config, backend, host, bind_host, weights, tls=None):
    """{options, reasons} of one instance; a model that cannot fit its share fails the task."""
    try:
        options, reasons = vllm_instances.instance_options(
            dict(plan), dict(model_config or {}), backend, host, bind_host,
            dict((k, int(v or 0)) for k, v in dict(weights or {}).items()), dict(tls) if tls else None)
    except vllm_options.OptionsError as err:
        raise AnsibleFilterError(str(err))
    return {"options": options, "reasons": reasons}


def vllm_instance_url(port, host, tls=False):
    """An instance's URL (vllm_readiness.service_url), the port first for map()."""
    return vllm_readiness.service_url(host, port, bool(tls))


class FilterModule(object):
    def filters(self):
        return {
            "vllm_instance_errors": vllm_instances.instance_errors,
            "vllm_instances_plan": vllm_instances_plan,
            "vllm_instance_options": vllm_instance_options,
            "vllm_instances_to_remove": vllm_instances.instances_to_remove,
            "vllm_instance_url": vllm_instance_url,
            "vllm_instance_paths": vllm_instances.instance_paths,
            "vllm_instance_gate_row": vllm_instances.gate_row,
            "vllm_instance_summary_line": vllm_instances.summary_line,
            "vllm_instances_restart_needed": vllm_instances.restart_needed,
        }
