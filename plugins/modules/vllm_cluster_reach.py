#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Node-to-node TCP reachability of a multi-node vLLM cluster, checked before anything starts."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_cluster_reach
short_description: Check that the nodes of a vLLM cluster reach each other on the pinned ports
description:
  - C(state=listening) starts a short-lived TCP listener on each port (a detached process that
    accepts and closes connections, and exits after I(duration) seconds). A port something already
    listens on (the running server) counts as listening; nothing is started for it.
  - C(state=reached) connects to every target, each attempt bounded by I(timeout), retried until
    I(deadline) seconds have passed, and fails naming which node cannot reach which port and what
    to change (firewall, interface).
  - Changes nothing on the host but a listener that exits by itself; reports changed=false. Runs
    in check mode too (it is the preflight).
options:
  state:
    description: C(listening) to listen, C(reached) to connect.
    type: str
    required: true
    choices: [listening, reached]
  ports: {description: Ports to listen on (C(listening))., type: list, elements: int, default: []}
  bind: {description: Address the listener binds., type: str, default: "0.0.0.0"}
  duration: {description: Seconds the listener lives (at most 600)., type: int, default: 60}
  targets:
    description: C(reached) - dicts with C(host) (its inventory name), C(address) and C(port).
    type: list
    elements: dict
    default: []
  timeout: {description: Seconds per connection attempt., type: float, default: 3.0}
  deadline: {description: Seconds to keep retrying a target that does not answer., type: float, default: 15.0}
  this_host: {description: This node's inventory name (for the messages)., type: str, default: this node}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Listen on the master port for a minute
  vllm_ops.workstation.vllm_cluster_reach:
    state: listening
    ports: [29501]

- name: Reach the other nodes
  vllm_ops.workstation.vllm_cluster_reach:
    state: reached
    this_host: "{{ inventory_hostname }}"
    targets: [{host: node-2, address: 192.168.1.21, port: 29501}]
"""

RETURN = r"""
listening: {description: Ports a listener was started on., returned: state=listening, type: list, elements: int}
already: {description: Ports something already listened on., returned: state=listening, type: list, elements: int}
results:
  description: Per target - host, address, port, ok, error, seconds.
  returned: state=reached
  type: list
  elements: dict
"""

import errno
import os
import select
import socket
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_cluster import reach_failures


def _family(address):
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def _bind(bind, port):
    sock = socket.socket(_family(bind), socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bind, port))
        sock.listen(16)
    except OSError:
        sock.close()
        raise
    return sock


def _serve(socks, duration):
    """Accept and close connections until the duration has passed (the detached listener)."""
    end = time.monotonic() + duration
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        ready, _w, _x = select.select(socks, [], [], min(left, 1.0))
        for sock in ready:
            try:
                conn, _addr = sock.accept()
                conn.close()
            except OSError:
                pass
    for sock in socks:
        sock.close()


def _detach(socks, duration):
    """Double fork: the listener outlives the module and holds none of its pipes."""
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        for sock in socks:
            sock.close()
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        _serve(socks, duration)
    finally:
        os._exit(0)


def listen(bind, ports, duration):
    socks, started, already = [], [], []
    for port in ports:
        try:
            socks.append(_bind(bind, port))
            started.append(port)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                for sock in socks:
                    sock.close()
                raise
            already.append(port)
    if socks:
        _detach(socks, duration)
    return started, already


def probe(address, port, timeout, deadline):
    """One target: connect until it answers or the deadline passes (bounded in count and time)."""
    start = time.monotonic()
    error = None
    for _attempt in range(100):
        try:
            conn = socket.create_connection((address, port), timeout=timeout)
            conn.close()
            return {"ok": True, "error": None, "seconds": round(time.monotonic() - start, 2)}
        except socket.timeout:
            error = "timed out after %.0f s" % timeout
        except OSError as exc:
            error = str(exc)
        if time.monotonic() - start + 0.5 >= deadline:
            break
        time.sleep(0.5)
    return {"ok": False, "error": error, "seconds": round(time.monotonic() - start, 2)}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", required=True, choices=["listening", "reached"]),
            ports=dict(type="list", elements="int", default=[]),
            bind=dict(type="str", default="0.0.0.0"),
            duration=dict(type="int", default=60),
            targets=dict(type="list", elements="dict", default=[]),
            timeout=dict(type="float", default=3.0),
            deadline=dict(type="float", default=15.0),
            this_host=dict(type="str", default="this node"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if p["state"] == "listening":
        if not 1 <= p["duration"] <= 600:
            module.fail_json(msg="duration: %s; accepted: 1 to 600 seconds" % p["duration"])
        try:
            started, already = listen(p["bind"], p["ports"], p["duration"])
        except OSError as exc:
            module.fail_json(msg="cannot listen on %s ports %s: %s" % (p["bind"], p["ports"], exc))
        module.exit_json(changed=False, listening=started, already=already)
    results = []
    for target in p["targets"]:
        result = dict(host=target.get("host"), address=target.get("address"), port=int(target.get("port")))
        result.update(probe(result["address"], result["port"], p["timeout"], p["deadline"]))
        results.append(result)
    failures = reach_failures(p["this_host"], results)
    if failures:
        module.fail_json(msg="; ".join(failures), results=results, unreachable=failures)
    module.exit_json(changed=False, results=results)


if __name__ == "__main__":
    main()
