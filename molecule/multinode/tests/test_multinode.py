"""Per node: the plan vllm_cluster rendered, the environment handed to the service, the nftables
table admitting the other node only on the cluster's ports."""
import json

import pytest

testinfra_hosts = ["podman://mn-1", "podman://mn-2"]


def _plan(host):
    return json.loads(host.file("/etc/vllm/cluster/cluster.json").content_string)


def _addresses(host):
    out = json.loads(host.check_output("ip -j addr"))
    return {a["local"] for link in out for a in link.get("addr_info", [])}


def test_plan_names_the_rank_head_and_this_nodes_address(host):
    plan = _plan(host)
    name = host.backend.get_hostname()
    assert plan["host"] == name
    assert plan["nnodes"] == 2 and plan["world_size"] == 2
    assert plan["rank"] == (0 if name == "mn-1" else 1)
    assert plan["node_ip"] in _addresses(host)
    assert plan["ifname"] == "eth0"
    assert plan["options"]["master_port"] == 29501
    assert plan["options"]["tensor_parallel_size"] == 2 and plan["options"]["pipeline_parallel_size"] == 1
    assert plan["options"].get("headless", False) is (name == "mn-2")


def test_environment_uses_the_interface_towards_the_head(host):
    env = _plan(host)["env"]
    assert env["GLOO_SOCKET_IFNAME"] == env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert env["VLLM_HOST_IP"] == _plan(host)["node_ip"]
    assert env["MASTER_ADDR"] == _plan(host)["head_address"] and env["MASTER_PORT"] == "29501"


def test_worker_has_the_headless_entry_point(host):
    shim = host.file("/etc/vllm/cluster/vllm_cluster_headless.py")
    assert shim.exists is (_plan(host)["role"] == "worker")


def test_nftables_admits_only_the_other_node(host):
    plan = _plan(host)
    table = host.check_output("nft list table inet vllm_cluster")
    assert plan["peers"] and all(p in table for p in plan["peers"])
    assert plan["node_ip"] not in table
    assert "29501" in table and "drop" in table
    assert host.service("vllm-cluster-firewall").is_enabled


@pytest.mark.parametrize("port", [29501])
def test_test_block_table_is_gone(host, port):
    assert "molecule_block" not in host.check_output("nft list tables")


def test_head_answered_a_completion(host):
    """converge.yml asked the head once (3 tries at most); the answer has generated text."""
    if host.backend.get_hostname() != "mn-1":
        pytest.skip("the head serves the API")
    answer = json.loads(host.file("/root/multinode-completion.json").content_string)
    assert answer["object"] == "text_completion"
    assert answer["choices"] and isinstance(answer["choices"][0]["text"], str)
    assert answer["usage"]["completion_tokens"] >= 1

