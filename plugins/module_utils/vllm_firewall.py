# -*- coding: utf-8 -*-
"""The server's guard: an nftables table of its own (``table inet vllm_guard``) that admits to the
server's port only loopback and the addresses listed in ``vllm_service_firewall_allow`` (the
routers' addresses), and refuses every other client with a TCP reset.

The table is replaced as a whole when the file is loaded (``table``; ``delete table``; ``table
{...}`` in one ``nft -f`` transaction), so loading it twice changes nothing and the user's own
ruleset is never flushed. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import ipaddress

__metaclass__ = type

TABLE = "vllm_guard"
ALLOW_ACCEPTED = ("a list of IPv4 or IPv6 addresses or networks (10.0.0.5, 10.0.0.0/24, fd00::5), "
                  "e.g. the routers' addresses; empty: no firewall rule")


def _fmt(value):
    return repr(value) if isinstance(value, str) else str(value)


def check_allow(name, value):
    """Errors for ``vllm_service_firewall_allow``: each entry an IP address or network."""
    if value is None or value == "" or value == []:
        return []
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        return ["%s is %s; accepted: %s" % (name, _fmt(value), ALLOW_ACCEPTED)]
    errors = []
    for entry in value:
        try:
            if not isinstance(entry, str):
                raise ValueError(entry)
            ipaddress.ip_network(entry.strip(), strict=False)
        except ValueError:
            errors.append("%s has %s; accepted: %s" % (name, _fmt(entry), ALLOW_ACCEPTED))
    return errors


def _networks(allow):
    nets = [ipaddress.ip_network(str(a).strip(), strict=False) for a in (allow or [])]
    four = sorted({n for n in nets if n.version == 4}, key=lambda n: (int(n.network_address), n.prefixlen))
    six = sorted({n for n in nets if n.version == 6}, key=lambda n: (int(n.network_address), n.prefixlen))

    def text(net):
        return str(net.network_address) if net.prefixlen == net.max_prefixlen else str(net)
    return [text(n) for n in four], [text(n) for n in six]


def guard_ports(port, instances=None, planned=None):
    """The TCP ports the guard covers: every instance's port when ``vllm_instances`` lists several
    servers on the host (``instances``: that list; ``planned``: vllm_preflight's plan of it, each
    with ``port``, read first), else the one server's ``port``. Sorted, each once."""
    ports = []
    if instances:
        for source in (planned or [], instances):
            ports = [item["port"] for item in source if isinstance(item, dict) and "port" in item]
            if ports:
                break
    if not ports:
        ports = [port]
    return sorted({int(str(p)) for p in ports})


def _dport(ports):
    return "%d" % ports[0] if len(ports) == 1 else "{ %s }" % ", ".join("%d" % p for p in ports)


def guard_ruleset(port, allow, table=TABLE):
    """The nft file of the guard for the server's TCP ``port`` (an int, or a list of the ports of
    several instances): loopback and ``allow`` accepted, every other client reset. ``allow`` empty:
    an empty string (no rule; the role removes it)."""
    if not allow:
        return ""
    four, six = _networks(allow)
    ports = sorted({int(str(p)) for p in (port if isinstance(port, (list, tuple)) else [port])})
    dport = _dport(ports)
    rules = ['iifname "lo" tcp dport %s accept' % dport]
    if four:
        rules.append("ip saddr { %s } tcp dport %s accept" % (", ".join(four), dport))
    if six:
        rules.append("ip6 saddr { %s } tcp dport %s accept" % (", ".join(six), dport))
    rules.append("tcp dport %s reject with tcp reset" % dport)
    what = ("the vLLM server's port %d" % ports[0] if len(ports) == 1
            else "the vLLM instances' ports %s" % ", ".join("%d" % p for p in ports))
    lines = [
        "#!/usr/sbin/nft -f",
        "# Admits only loopback and vllm_service_firewall_allow to %s." % what,
        "# Its own table, replaced as a whole: the rest of the ruleset is left alone.",
        "table inet %s" % table,
        "delete table inet %s" % table,
        "table inet %s {" % table,
        "  chain input {",
        "    type filter hook input priority filter - 10; policy accept;",
    ] + ["    " + rule for rule in rules] + ["  }", "}"]
    return "\n".join(lines) + "\n"
