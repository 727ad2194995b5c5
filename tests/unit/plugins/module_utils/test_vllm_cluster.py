"""vllm_cluster: ranks, interface from the route to the head, parallel sizes, options and env."""
import json

import pytest

import vllm_cluster as c

# `ip -j addr` of a workstation: LAN on enp5s0, docker0, a user bridge, Wi-Fi, IPv6
ADDR_WS = json.dumps([
    {"ifname": "lo", "flags": ["LOOPBACK", "UP"], "addr_info": [
        {"family": "inet", "local": "127.0.0.1", "scope": "host"},
        {"family": "inet6", "local": "::1", "scope": "host"}]},
    {"ifname": "enp5s0", "flags": ["BROADCAST", "UP"], "addr_info": [
        {"family": "inet", "local": "192.168.1.20", "prefixlen": 24, "scope": "global"},
        {"family": "inet6", "local": "fd00::20", "prefixlen": 64, "scope": "global"},
        {"family": "inet6", "local": "fe80::1", "prefixlen": 64, "scope": "link"}]},
    {"ifname": "wlp3s0", "flags": ["BROADCAST", "UP"], "addr_info": [
        {"family": "inet", "local": "10.0.0.7", "prefixlen": 24, "scope": "global"}]},
    {"ifname": "docker0", "flags": ["NO-CARRIER", "UP"], "addr_info": [
        {"family": "inet", "local": "172.17.0.1", "prefixlen": 16, "scope": "global"}]},
    {"ifname": "br-3f2a9c1d", "flags": ["UP"], "addr_info": [
        {"family": "inet", "local": "192.168.50.1", "prefixlen": 24, "scope": "global"}]},
])
# WSL2 (NAT mode): one eth0
ADDR_WSL = json.dumps([
    {"ifname": "lo", "flags": ["LOOPBACK", "UP"], "addr_info": [{"family": "inet", "local": "127.0.0.1"}]},
    {"ifname": "eth0", "flags": ["UP"], "addr_info": [
        {"family": "inet", "local": "172.28.144.5", "prefixlen": 20, "scope": "global"}]},
])


def route(dev, src=None, gateway=None, rtype=None, dst="192.168.1.10"):
    entry = {"dst": dst, "dev": dev, "flags": [], "uid": 0, "cache": []}
    if src:
        entry["prefsrc"] = src
    if gateway:
        entry["gateway"] = gateway
    if rtype:
        entry["type"] = rtype
    return json.dumps([entry])


def test_route_on_lan_interface_picks_it_and_its_source():
    r = c.parse_route_get(route("enp5s0", "192.168.1.20"))
    got = c.choose_interface(r, c.parse_addrs(ADDR_WS), "192.168.1.10")
    assert got == {"ifname": "enp5s0", "address": "192.168.1.20"}


def test_route_via_gateway_on_wifi_picks_wifi():
    r = c.parse_route_get(route("wlp3s0", "10.0.0.7", gateway="10.0.0.1", dst="10.8.0.3"))
    assert c.choose_interface(r, c.parse_addrs(ADDR_WS), "10.8.0.3")["ifname"] == "wlp3s0"


def test_route_into_a_docker_bridge_is_refused_with_what_to_change():
    r = c.parse_route_get(route("docker0", "172.17.0.1", dst="172.17.0.9"))
    with pytest.raises(c.ClusterError,
                       match=r"vllm_cluster_node_address of the head: .*172\.17\.0\.9.*docker0.*bridge"):
        c.choose_interface(r, c.parse_addrs(ADDR_WS), "172.17.0.9")
    r = c.parse_route_get(route("br-3f2a9c1d", "192.168.50.1", dst="192.168.50.2"))
    with pytest.raises(c.ClusterError, match="br-3f2a9c1d"):
        c.choose_interface(r, c.parse_addrs(ADDR_WS), "192.168.50.2")


def test_head_itself_routes_by_lo_and_takes_the_interface_holding_the_address():
    r = c.parse_route_get(route("lo", "192.168.1.20", rtype="local", dst="192.168.1.20"))
    got = c.choose_interface(r, c.parse_addrs(ADDR_WS), "192.168.1.20", is_head=True)
    assert got == {"ifname": "enp5s0", "address": "192.168.1.20"}


def test_head_address_not_held_by_the_head_is_refused_listing_its_addresses():
    r = c.parse_route_get(route("enp5s0", "192.168.1.20"))
    with pytest.raises(c.ClusterError, match=r"192\.168\.1\.99 is not an address.*enp5s0=192\.168\.1\.20"):
        c.choose_interface(r, c.parse_addrs(ADDR_WS), "192.168.1.99", is_head=True)


def test_wsl_eth0():
    r = c.parse_route_get(route("eth0", "172.28.144.5", gateway="172.28.144.1", dst="192.168.1.10"))
    assert c.choose_interface(r, c.parse_addrs(ADDR_WSL), "192.168.1.10") == {
        "ifname": "eth0", "address": "172.28.144.5"}


def test_ipv6_route_without_prefsrc_takes_the_global_v6_address_not_link_local():
    r = c.parse_route_get(json.dumps([{"dst": "fd00::10", "dev": "enp5s0", "metric": 256}]))
    assert c.choose_interface(r, c.parse_addrs(ADDR_WS), "fd00::10") == {"ifname": "enp5s0", "address": "fd00::20"}


def test_no_route_is_named():
    with pytest.raises(c.ClusterError, match="no route"):
        c.choose_interface(c.parse_route_get("[]"), c.parse_addrs(ADDR_WS), "203.0.113.5")


def test_not_json_is_named():
    with pytest.raises(c.ClusterError, match="ip -j route get"):
        c.parse_route_get("RTNETLINK answers: Network is unreachable")


def test_parallel_sizes_default_tp_in_node_pp_across():
    assert c.parallel_sizes(2, 4, 0, 0) == (4, 2)
    assert c.parallel_sizes(2, 1, 2, 0) == (2, 1)
    assert c.parallel_sizes(3, 2, 0, 3) == (2, 3)


def test_parallel_sizes_refused_with_numbers():
    with pytest.raises(c.ClusterError,
                       match=r"vllm_cluster_tensor_parallel_size: 4 does not divide the 6 ranks \(3 nodes x 2"):
        c.parallel_sizes(3, 2, 4, 0)
    with pytest.raises(c.ClusterError, match=r"2 x 2 = 4, but the cluster has 6 ranks"):
        c.parallel_sizes(3, 2, 2, 2)
    with pytest.raises(c.ClusterError, match="vllm_cluster_pipeline_parallel_size: 4"):
        c.parallel_sizes(3, 2, 0, 4)


def test_node_list_head_first_and_errors():
    assert c.node_list(["a", "b", "c"], "b") == ["b", "a", "c"]
    assert c.node_list(["a", "b"], "") == ["a", "b"]
    with pytest.raises(c.ClusterError, match="two or more"):
        c.node_list(["a"], "a")
    with pytest.raises(c.ClusterError, match="vllm_cluster_head: 'z' is not in the group"):
        c.node_list(["a", "b"], "z")


def test_plan_of_head_and_worker():
    addrs = c.parse_addrs(ADDR_WS)
    peers = {"n1": "192.168.1.20", "n2": "192.168.1.21"}
    head = c.plan_node("n1", ["n1", "n2"], "n1", "192.168.1.20",
                       c.parse_route_get(route("lo", rtype="local", dst="192.168.1.20")), addrs,
                       peer_addresses=peers)
    assert head["rank"] == 0 and head["role"] == "head"
    assert head["options"] == {"nnodes": 2, "node_rank": 0, "master_addr": "192.168.1.20", "master_port": 29501,
                               "tensor_parallel_size": 1, "pipeline_parallel_size": 2,
                               "distributed_executor_backend": "mp"}
    assert head["env"]["GLOO_SOCKET_IFNAME"] == head["env"]["NCCL_SOCKET_IFNAME"] == "enp5s0"
    assert head["env"]["VLLM_HOST_IP"] == "192.168.1.20"
    assert head["peers"] == ["192.168.1.21"] and head["peers_v6"] == []
    worker_addrs = c.parse_addrs(ADDR_WS.replace("192.168.1.20", "192.168.1.21"))
    worker = c.plan_node("n2", ["n1", "n2"], "n1", "192.168.1.20",
                         c.parse_route_get(route("enp5s0", "192.168.1.21", dst="192.168.1.20")), worker_addrs,
                         peer_addresses=peers)
    assert worker["rank"] == 1 and worker["options"]["headless"] is True
    assert worker["options"]["node_rank"] == 1 and worker["env"]["VLLM_HOST_IP"] == "192.168.1.21"
    assert worker["env"]["MASTER_ADDR"] == "192.168.1.20" and worker["peers"] == ["192.168.1.20"]


def test_plan_refuses_names_and_bad_ports():
    with pytest.raises(c.ClusterError, match="vllm_cluster_node_address of the head: 'head.lan' is not an IP address"):
        c.plan_node("a", ["a", "b"], "a", "head.lan", {}, {})
    with pytest.raises(c.ClusterError, match="vllm_cluster_master_port: 80; accepted"):
        c.plan_node("a", ["a", "b"], "a", "10.0.0.1", {}, {}, master_port=80)


def test_port_range_parse():
    assert c.parse_port_range("32768\t60999\n") == (32768, 60999)
    assert c.parse_port_range("") == c.DEFAULT_EPHEMERAL


def test_headless_argv():
    assert c.headless_argv(["bin/vllm", "serve"]) == ["bin/vllm", "serve"]
    assert c.headless_argv(["bin/python", "-m", "vllm.entrypoints.openai.api_server"])[0] == "bin/python"


def test_consistency_names_the_differing_host():
    facts = {"n1": {"vllm_version": "0.32.0", "model_digest": "aa", "venv": "/opt/v"},
             "n2": {"vllm_version": "0.32.0", "model_digest": "bb", "venv": "/opt/v"},
             "n3": {"vllm_version": "0.32.0", "model_digest": "aa", "venv": "/opt/v"}}
    errors = c.consistency_errors(facts)
    assert errors == ["model digest differs on n2: bb, the other nodes have aa; accepted: the same model digest "
                      "on every node (run the play on all of them with the same inputs)"]
    facts["n2"]["model_digest"] = "aa"
    assert c.consistency_errors(facts) == []


def test_reach_targets_are_the_other_nodes_on_the_pinned_ports():
    plan = {"host": "n1", "ports": [29501]}
    assert c.reach_targets(plan, {"n1": "10.0.0.1", "n2": "10.0.0.2"}) == [
        {"host": "n2", "address": "10.0.0.2", "port": 29501}]


def test_reach_failures_name_node_port_and_what_to_change():
    results = [{"host": "n2", "address": "10.0.0.2", "port": 29501, "ok": True},
               {"host": "n3", "address": "10.0.0.3", "port": 29501, "ok": False, "error": "timed out"},
               {"host": "n4", "address": "10.0.0.4", "port": 29501, "ok": False,
                "error": "[Errno 111] Connection refused"}]
    lines = c.reach_failures("n1", results)
    assert len(lines) == 2
    assert lines[0].startswith("n1 cannot reach n3 at 10.0.0.3 port 29501 (timed out): packets are dropped")
    assert "open TCP 29501 on n3 for n1" in lines[0]
    assert "Connection refused" in lines[1] and "firewall" in lines[1]


def test_default_address_from_the_default_route():
    default = json.dumps([{"dst": "default", "gateway": "192.168.1.1", "dev": "enp5s0", "protocol": "dhcp",
                           "prefsrc": "192.168.1.20"}])
    assert c.default_address(default, ADDR_WS) == "192.168.1.20"
    no_src = json.dumps([{"dst": "default", "gateway": "172.28.144.1", "dev": "eth0"}])
    assert c.default_address(no_src, ADDR_WSL) == "172.28.144.5"
    with pytest.raises(c.ClusterError, match="vllm_cluster_node_address: empty"):
        c.default_address("[]", ADDR_WSL)


def test_model_digest_ignores_order_and_sees_sizes_and_commit():
    a = c.model_digest("config.json\t600\nmodel.safetensors\t1000\n")
    assert a == c.model_digest("model.safetensors\t1000\nconfig.json\t600\n")
    assert a != c.model_digest("config.json\t600\nmodel.safetensors\t999\n")
    assert a != c.model_digest("config.json\t600\nmodel.safetensors\t1000\n", commit="abc")


def test_plan_or_error_returns_the_message():
    got = c.plan_or_error(host="a", group_hosts=["a"], head="a", head_address="10.0.0.1", route={}, addrs={})
    assert "two or more" in got["error"]


def test_cpu_backend_is_tensor_parallel_across_nodes_only():
    assert c.parallel_sizes(2, 1, 0, 0, backend="cpu") == (2, 1)
    assert c.parallel_sizes(2, 1, 2, 1, backend="cpu") == (2, 1)
    with pytest.raises(c.ClusterError,
                       match=r"vllm_cluster_pipeline_parallel_size: 2 .*CPU backend.*intermediate_tensors"):
        c.parallel_sizes(2, 1, 0, 2, backend="cpu")
