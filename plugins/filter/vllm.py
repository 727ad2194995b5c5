# -*- coding: utf-8 -*-
"""Filters that expose the provisioner's decisions to tasks (the logic lives in module_utils)."""
from __future__ import absolute_import, division, print_function

import os
import sys

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm
short_description: vLLM provisioner decisions (input checks, plan, server options, rendering)
description:
  - C(vllm_input_errors) returns the list of input errors (variable, value, what is accepted).
  - C(vllm_plan) picks Python, backend, torch and vLLM for a host from the compatibility table.
  - C(vllm_model_facts), C(vllm_service_options), C(vllm_service_env) compute the server's options.
  - C(vllm_cli_yaml) and C(vllm_env_file) render them for vLLM's --config and EnvironmentFile=.
  - C(vllm_lock_drift) compares a venv's C(uv pip freeze) with the release's lock file.
"""

_UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils")
if _UTILS not in sys.path:
    sys.path.insert(0, _UTILS)

import vllm_lock  # noqa: E402  pylint: disable=wrong-import-position
import vllm_options  # noqa: E402  pylint: disable=wrong-import-position
import vllm_plan  # noqa: E402  pylint: disable=wrong-import-position
import vllm_validate  # noqa: E402  pylint: disable=wrong-import-position


def vllm_input_errors(values, model_source_exists=None, table=None):
    """Errors in the user's inputs (empty when all is well). ``table`` adds the planner's pins."""
    errors = vllm_validate.validate_inputs(dict(values), model_source_exists)
    if table is not None:
        pins = {
            "backend": values.get("vllm_install_backend", "auto"),
            "vllm_version": values.get("vllm_install_version") or None,
            "python_version": values.get("vllm_python_version") or None,
            "cuda_variant": values.get("vllm_install_cuda_variant") or None,
        }
        errors.extend(e for e in vllm_plan.validate_pins(pins, table) if e not in errors)
    return errors


def vllm_plan_for(host, table, pins):
    """The install plan for a host, or ``{"error": ..., "way_out": ...}`` when it must refuse."""
    pins = dict((k, (v or None) if k != "backend" else (v or "auto")) for k, v in pins.items())
    try:
        plan = vllm_plan.plan(host, table, pins)
    except vllm_plan.PlanError as err:
        return {"error": str(err), "way_out": getattr(err, "way_out", None)}
    plan["error"] = None
    plan["way_out"] = None
    return plan


def vllm_service_options(model_config, backend, host, served_name, bind_host, port,
                         user_options=None, weights_bytes=0):
    facts = vllm_options.model_facts(model_config)
    options, reasons = vllm_options.compute_options(backend, host, facts, served_name, bind_host,
                                                    port, user_options, weights_bytes)
    return {"options": options, "reasons": reasons, "model": facts}


def vllm_service_env(backend, host, user_env=None, state_dir=None):
    env, reasons = vllm_options.service_env(backend, host, user_env, state_dir)
    return {"env": env, "reasons": reasons}


class FilterModule(object):
    def filters(self):
        return {
            "vllm_input_errors": vllm_input_errors,
            "vllm_host_problems": vllm_validate.host_problems,
            "vllm_plan": vllm_plan_for,
            "vllm_model_facts": vllm_options.model_facts,
            "vllm_service_options": vllm_service_options,
            "vllm_service_env": vllm_service_env,
            "vllm_cli_yaml": vllm_options.to_cli_yaml,
            "vllm_env_file": vllm_options.to_env_file,
            "vllm_lock_drift": vllm_lock.drift,
            "vllm_option_lines": vllm_options.option_lines,
        }
