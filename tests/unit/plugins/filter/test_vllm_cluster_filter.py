"""The vllm_cluster filters as the role calls them (strings from the tasks, errors as values)."""
import json

from vllm_testlib import load_filter

F = load_filter("vllm_cluster").FilterModule().filters()
ADDR = json.dumps([{"ifname": "eth0", "flags": ["UP"], "addr_info": [{"family": "inet", "local": "10.89.0.3"}]}])


def settings(**over):
    base = {"nodes": ["mn-1", "mn-2"], "head": "mn-1", "head_address": "10.89.0.2",
            "route": json.dumps([{"dst": "10.89.0.2", "dev": "eth0", "prefsrc": "10.89.0.3"}]), "addr": ADDR,
            "ranks_per_node": "1", "tensor": "0", "pipeline": "0", "master_port": "29501",
            "port_range": "32768\t60999\n", "addresses": {"mn-1": "10.89.0.2", "mn-2": "10.89.0.3"}}
    base.update(over)
    return base


def test_worker_plan_from_task_strings():
    plan = F["vllm_cluster_plan"]("mn-2", settings())
    assert plan["error"] is None
    assert plan["options"]["headless"] and plan["env"]["GLOO_SOCKET_IFNAME"] == "eth0"
    assert plan["peers_v4"] == ["10.89.0.2"] and plan["ephemeral_ports"] == [32768, 60999]


def test_errors_are_values_for_the_assert():
    assert "vllm_cluster_tensor_parallel_size: 3" in F["vllm_cluster_plan"]("mn-2", settings(tensor="3"))["error"]
    assert "not the JSON" in F["vllm_cluster_plan"]("mn-2", settings(route="RTNETLINK answers"))["error"]


def test_default_address_given_wins_and_errors_are_prefixed():
    assert F["vllm_cluster_default_address"]("[]", ADDR, "10.0.0.9") == "10.0.0.9"
    assert F["vllm_cluster_default_address"]("[]", ADDR).startswith("error: vllm_cluster_node_address")
