# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for roles/vllm_cluster (the logic lives in module_utils/vllm_cluster.py)."""
from __future__ import absolute_import, division, print_function

import os
import sys

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm_cluster
short_description: Multi-node vLLM decisions (per-node plan, addresses, digests, consistency)
description:
  - C(vllm_cluster_plan) is the node's plan (rank, head address, this node's IP, the interface for
    NCCL and Gloo from the route to the head, parallel sizes, vLLM options and environment, the
    peers the firewall admits), or C({error - message}).
  - C(vllm_cluster_default_address) is a node's address taken from its default route.
  - C(vllm_cluster_model_digest) digests a model folder's listing (names and sizes, and a commit).
  - C(vllm_cluster_consistency) lists the nodes whose release, model or venv differ.
  - C(vllm_cluster_reach_targets) what a node must reach; C(vllm_cluster_headless_argv) a worker's
    command.
"""

try:  # Ansible: the collection's module_utils
    from ansible_collections.vllm_ops.workstation.plugins.module_utils import vllm_cluster
except ImportError:  # plain Python (tests)
    _PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if _PLUGINS not in sys.path:
        sys.path.insert(0, _PLUGINS)
    from module_utils import vllm_cluster  # type: ignore  # noqa: E402  pylint: disable=import-error


def vllm_cluster_plan(host, settings):
    """``settings``: nodes, head, head_address, route (ip -j route get), addr (ip -j addr),
    ranks_per_node, tensor, pipeline, master_port, port_range (the /proc text), addresses,
    backend (cpu or cuda)."""
    try:
        route = vllm_cluster.parse_route_get(settings.get("route"))
        addrs = vllm_cluster.parse_addrs(settings.get("addr"))
        ints = dict((k, int(settings.get(k) or 0)) for k in ("ranks_per_node", "tensor", "pipeline", "master_port"))
    except (vllm_cluster.ClusterError, ValueError, TypeError) as exc:
        return {"error": str(exc)}
    return vllm_cluster.plan_or_error(
        host=host, group_hosts=settings.get("nodes"), head=settings.get("head"),
        head_address=settings.get("head_address"), route=route, addrs=addrs,
        ranks_per_node=ints["ranks_per_node"], tensor=ints["tensor"], pipeline=ints["pipeline"],
        master_port=ints["master_port"], ephemeral=vllm_cluster.parse_port_range(settings.get("port_range")),
        peer_addresses=settings.get("addresses"), backend=settings.get("backend") or "cuda")


def vllm_cluster_default_address(default_route_json, addr_json, given=""):
    if given:
        return given
    try:
        return vllm_cluster.default_address(default_route_json, addr_json)
    except vllm_cluster.ClusterError as exc:
        return "error: %s" % exc


class FilterModule(object):
    def filters(self):
        return {
            "vllm_cluster_plan": vllm_cluster_plan,
            "vllm_cluster_default_address": vllm_cluster_default_address,
            "vllm_cluster_model_digest": vllm_cluster.model_digest,
            "vllm_cluster_consistency": vllm_cluster.consistency_errors,
            "vllm_cluster_reach_targets": vllm_cluster.reach_targets,
            "vllm_cluster_headless_argv": vllm_cluster.headless_argv,
        }
