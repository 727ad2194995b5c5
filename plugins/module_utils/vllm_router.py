# -*- coding: utf-8 -*-
"""One endpoint for a fleet: the router's backends and command line, and what Prometheus scrapes
and alerts on, computed from the inventory's facts.

- ``backends``: each server of the group ``vllm_servers`` as the router reaches it (the URL the
  service computes, ``vllm_readiness.service_url``, with a wildcard bind address replaced by the
  host's address), refusing a server that only listens on its own loopback when the router is
  another host. A server host with a non-empty ``vllm_instances`` contributes one backend per
  instance instead, named ``HOST/NAME``, at the instance's port (the same address rules).
- ``router_argv``: ``vllm-router``'s command line (flags read from ``vllm-router --help`` of
  0.1.17: --worker-urls, --policy, --health-check-*, --prometheus-*).
- ``router_input_errors`` / ``monitor_input_errors``: the roles' input checks (variable, value,
  what is accepted), before anything changes.
- ``scrape_config``, ``alert_rules``: Prometheus's configuration and rules as data (the roles
  write them as YAML; promtool checks them in tests/unit).
- ``gate_textfile``: the readiness gate's result as a node-exporter textfile metric.

Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

from urllib.parse import quote

from .vllm_readiness import service_url
from .vllm_validate import _truthy, check_port, is_loopback as _is_loopback

__metaclass__ = type

POLICIES = ("random", "round_robin", "cache_aware", "kv_aware", "power_of_two", "consistent_hash",
            "sticky_least_loaded")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
WILDCARDS = ("0.0.0.0", "::", "[::]", "")
# the metric the readiness gate's hook writes into the node exporter's textfile directory
GATE_METRIC = "vllm_readiness_gate_ok"
_VERSION = re.compile(r"[0-9]+(\.[0-9]+){1,3}")
_DURATION = re.compile(r"[0-9]+(ms|s|m|h|d)")


class RouterError(ValueError):
    """Facts the router cannot be built from (the message names the host and the variable)."""


def is_loopback(host):
    """vllm_validate.is_loopback of an address as the inventory may bracket it ([::1])."""
    return _is_loopback(str(host).strip("[]"))


def backend(name, facts, router_host=None):
    """One server as the router reaches it: ``{name, url, health_url, target, scheme}``.

    ``facts``: the server's vars (``vllm_service_host``, ``vllm_service_port``,
    ``vllm_service_tls_cert``, ``ansible_host``); missing ones take the service role's defaults.
    A wildcard bind address (0.0.0.0, ::) is reached at ``ansible_host`` (else the inventory
    name); a loopback one only from the same host (``router_host`` is ``name``).
    """
    facts = facts or {}
    return _backend(name, name, facts, facts.get("vllm_service_port", 8000), router_host)


def _backend(name, host, facts, port, router_host, instance=None):
    """``backend`` of the server on ``host`` listening on ``port``, named ``name``."""
    bind = str(facts.get("vllm_service_host", "127.0.0.1"))
    address = str(facts.get("ansible_host") or host) if bind in WILDCARDS else bind
    if is_loopback(address) and router_host is not None and router_host != host:
        raise RouterError(
            "server %s%s: vllm_service_host is %s (its own loopback), so the router on %s cannot "
            "reach it; accepted: an address the router reaches (0.0.0.0 with ansible_host, or the "
            "host's address), with vllm_service_api_key set"
            % (host, (" (instance %s)" % instance) if instance is not None else "", bind, router_host))
    tls = bool(facts.get("vllm_service_tls_cert"))
    url = service_url(address, port, tls)[:-len("/v1")]
    found = {"name": name, "url": url, "health_url": url + "/health",
             "target": url.split("://", 1)[1], "scheme": "https" if tls else "http"}
    if instance is not None:
        found.update({"host": host, "instance": instance})
    return found


def instances_of(facts):
    """The ``vllm_instances`` of a server's vars: the list when it is a non-empty list, else None
    (the host runs one server)."""
    instances = (facts or {}).get("vllm_instances")
    return instances if isinstance(instances, list) and instances else None


def instance_backends(name, facts, router_host=None):
    """One ``backend`` per instance of a host with ``vllm_instances``: named ``HOST/NAME``, at
    the instance's port, with ``host`` and ``instance`` (its name) added; the bind address, its
    rules and TLS are the host's (``vllm_service_host``, ``vllm_service_tls_cert``)."""
    facts = facts or {}
    found = []
    for i, raw in enumerate(instances_of(facts) or []):
        item = raw if isinstance(raw, dict) else {}
        instance = item.get("name")
        port = _as_int(item.get("port"))
        if not isinstance(instance, str) or not instance or port is None or not 0 < port < 65536:
            raise RouterError(
                "server %s: vllm_instances[%d] is %r; accepted: a mapping with a name and a port "
                "(the router reaches each instance at its port)" % (name, i, raw))
        found.append(_backend("%s/%s" % (name, instance), name, facts, port, router_host, instance))
    return found


def backends(servers, hostvars, router_host=None):
    """``backend`` for each name in ``servers`` (the group vllm_servers), in inventory order, or
    ``instance_backends`` for a host with ``vllm_instances`` (its instances in their list's
    order); an empty group is an error (a router with nothing behind it)."""
    names = list(servers or [])
    if not names:
        raise RouterError("the group vllm_servers is empty: the router has no backend; accepted: "
                          "at least one host in vllm_servers")
    found = []
    for name in names:
        facts = (hostvars or {}).get(name, {})
        if instances_of(facts):
            found.extend(instance_backends(name, facts, router_host))
        else:
            found.append(backend(name, facts, router_host))
    return found


def router_argv(venv, settings, servers):
    """``vllm-router``'s argv. ``settings``: host, port, policy, health_interval,
    health_timeout, health_failure_threshold, health_success_threshold, prometheus_host,
    prometheus_port, log_level, request_timeout. ``servers``: ``backends``' result. No secret
    is ever on this line: vllm-router passes the client's Authorization header through to the
    servers, which check it."""
    argv = [venv.rstrip("/") + "/bin/vllm-router",
            "--host", str(settings["host"]), "--port", str(settings["port"]),
            "--policy", settings["policy"],
            "--worker-urls"] + [b["url"] for b in servers]
    argv += ["--health-check-endpoint", "/health",
             "--health-check-interval-secs", str(settings["health_interval"]),
             "--health-check-timeout-secs", str(settings["health_timeout"]),
             "--health-failure-threshold", str(settings["health_failure_threshold"]),
             "--health-success-threshold", str(settings["health_success_threshold"]),
             "--request-timeout-secs", str(settings["request_timeout"]),
             "--prometheus-host", str(settings["prometheus_host"]),
             "--prometheus-port", str(settings["prometheus_port"]),
             "--log-level", settings["log_level"]]
    return argv


def _as_int(value):
    """An int, or a string of digits (extra vars are strings); None otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _as_fraction(value):
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _port_error(name, value):
    if check_port(name, value):
        return {"variable": name, "value": value, "accepted": "an integer from 1 to 65535"}
    return None


def _positive_error(name, value):
    number = _as_int(value)
    if number is None or number < 1:
        return {"variable": name, "value": value, "accepted": "an integer of at least 1"}
    return None


def _host_error(name, value):
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
        return {"variable": name, "value": value, "accepted": "an address or host name (no spaces)"}
    return None


def router_input_errors(values):
    """The router role's input errors: ``[{variable, value, accepted}]``, empty when all is well.
    ``values``: the ``vllm_router_*`` variables without the prefix."""
    errors = [
        _host_error("vllm_router_host", values.get("host")),
        _port_error("vllm_router_port", values.get("port")),
        _host_error("vllm_router_prometheus_host", values.get("prometheus_host")),
        _port_error("vllm_router_prometheus_port", values.get("prometheus_port")),
    ]
    for key in ("health_interval", "health_timeout", "health_failure_threshold",
                "health_success_threshold", "request_timeout"):
        errors.append(_positive_error("vllm_router_" + key, values.get(key)))
    if values.get("policy") not in POLICIES:
        errors.append({"variable": "vllm_router_policy", "value": values.get("policy"),
                       "accepted": "one of " + ", ".join(POLICIES)})
    if values.get("log_level") not in LOG_LEVELS:
        errors.append({"variable": "vllm_router_log_level", "value": values.get("log_level"),
                       "accepted": "one of " + ", ".join(LOG_LEVELS)})
    version = values.get("version")
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        errors.append({"variable": "vllm_router_version", "value": version,
                       "accepted": "an exact release such as 0.1.17 (the version is pinned)"})
    if _as_int(values.get("port")) == _as_int(values.get("prometheus_port")) and _as_int(values.get("port")):
        errors.append({"variable": "vllm_router_prometheus_port", "value": values.get("prometheus_port"),
                       "accepted": "a port other than vllm_router_port"})
    # vllm-router 0.1.17 serves /add_worker, /remove_worker and /list_workers to anyone who
    # reaches its port: beyond loopback that must be a deliberate choice
    host = values.get("host")
    if isinstance(host, str) and not is_loopback(host) and not _truthy(values.get("allow_open_admin")):
        errors.append({"variable": "vllm_router_host", "value": host,
                       "accepted": "a loopback address, or set vllm_router_allow_open_admin: true "
                                   "after closing the router's port to untrusted clients (vllm-router "
                                   "answers /add_worker and /remove_worker without a key)"})
    return [e for e in errors if e]


def monitor_input_errors(values):
    """The monitor role's input errors (``vllm_monitor_*`` without the prefix)."""
    errors = [_port_error("vllm_monitor_node_exporter_port", values.get("node_exporter_port"))]
    for key in ("scrape_interval", "server_down_for", "kv_cache_for", "waiting_for"):
        value = values.get(key)
        if not isinstance(value, str) or not _DURATION.fullmatch(value):
            errors.append({"variable": "vllm_monitor_" + key, "value": value,
                           "accepted": "a Prometheus duration such as 30s, 5m, 1h"})
    threshold = _as_fraction(values.get("kv_cache_threshold"))
    if threshold is None or not 0 < threshold <= 1:
        errors.append({"variable": "vllm_monitor_kv_cache_threshold", "value": values.get("kv_cache_threshold"),
                       "accepted": "a fraction above 0 and at most 1 (0.9 = 90 %)"})
    return [e for e in errors if e]


def _labels(target):
    """A target's labels: ``host``, and ``vllm_instance`` (the instance's name) for an instance of
    ``vllm_instances`` (Prometheus's own ``instance`` label stays the target's address)."""
    if target.get("instance") is not None:
        return {"host": target["host"], "vllm_instance": target["instance"]}
    return {"host": target["name"]}


def _static(targets):
    return [{"targets": [t["target"]], "labels": _labels(t)} for t in targets]


def _address(name, facts):
    return str((facts or {}).get("ansible_host") or name)


def _hostport(address, port):
    return "%s:%d" % ("[%s]" % address if ":" in address else address, int(port))


def node_targets(hosts, hostvars, port):
    """``[{name, target}]``: the node exporter of each host (at ``ansible_host`` or its name)."""
    out = []
    for name in hosts or []:
        address = _address(name, (hostvars or {}).get(name))
        out.append({"name": name, "target": _hostport(address, port)})
    return out


def router_targets(routers, hostvars, monitor_host):
    """``[{name, target}]``: each router's Prometheus port that ``monitor_host`` can reach (one
    bound to loopback only from the same host; the others are left out)."""
    out = []
    for name in routers or []:
        facts = (hostvars or {}).get(name) or {}
        bind = str(facts.get("vllm_router_prometheus_host", "127.0.0.1"))
        address = _address(name, facts) if bind in WILDCARDS else bind
        if is_loopback(address) and name != monitor_host:
            continue
        port = facts.get("vllm_router_prometheus_port", 29000)
        out.append({"name": name, "target": _hostport(address, port)})
    return out


def scrape_config(servers, nodes, routers, settings):
    """Prometheus's configuration (a dict to write as YAML).

    ``servers``: ``backends``' result (vLLM's /metrics needs no API key: vLLM guards only /v1,
    /v2, /inference and /cohere; an instance of ``vllm_instances`` is a target of its own,
    labelled ``host`` and ``vllm_instance``); ``nodes``: ``[{name, target}]`` of every node exporter;
    ``routers``: ``[{name, target}]`` of the routers' Prometheus ports; ``settings``:
    scrape_interval, rule_files, ca_file and ca_given (https servers are checked against ca_file
    when ca_given, else against the system's CAs).
    """
    jobs = []
    by_scheme = {}
    for server in servers:
        by_scheme.setdefault(server["scheme"], []).append(server)
    for scheme in sorted(by_scheme):
        job = {"job_name": "vllm" if scheme == "http" else "vllm_tls", "scheme": scheme,
               "metrics_path": "/metrics", "static_configs": _static(by_scheme[scheme])}
        if scheme == "https" and settings.get("ca_given") and settings.get("ca_file"):
            job["tls_config"] = {"ca_file": settings["ca_file"]}
        jobs.append(job)
    if nodes:
        jobs.append({"job_name": "node", "static_configs": _static(nodes)})
    if routers:
        jobs.append({"job_name": "vllm_router", "static_configs": _static(routers)})
    return {"global": {"scrape_interval": settings["scrape_interval"],
                       "evaluation_interval": settings["scrape_interval"]},
            "rule_files": list(settings.get("rule_files") or []),
            "scrape_configs": jobs}


def alert_rules(settings):
    """The alert rules (a dict to write as YAML). ``settings``: server_down_for, kv_cache_threshold
    (a fraction: vllm:kv_cache_usage_perc is 0..1, "1 means 100 percent usage"), kv_cache_for,
    waiting_for."""
    threshold = float(settings["kv_cache_threshold"])
    percent = "%g" % (threshold * 100)
    rules = [
        {"alert": "VllmServerDown", "expr": 'up{job=~"vllm|vllm_tls"} == 0',
         "for": settings["server_down_for"], "labels": {"severity": "critical"},
         "annotations": {"summary": "vLLM server {{ $labels.instance }} is down",
                         "description": "Prometheus cannot scrape /metrics of {{ $labels.instance }}."}},
        {"alert": "VllmKvCacheFull",
         "expr": "vllm:kv_cache_usage_perc > %g" % threshold,
         "for": settings["kv_cache_for"], "labels": {"severity": "warning"},
         "annotations": {"summary": "KV cache of {{ $labels.instance }} above %s %%" % percent,
                         "description": "vllm:kv_cache_usage_perc is {{ $value }}: requests will "
                                        "queue or be preempted."}},
        {"alert": "VllmRequestsWaiting", "expr": "vllm:num_requests_waiting > 0",
         "for": settings["waiting_for"], "labels": {"severity": "warning"},
         "annotations": {"summary": "Requests waiting on {{ $labels.instance }}",
                         "description": "vllm:num_requests_waiting has been above 0 for %s."
                                        % settings["waiting_for"]}},
        {"alert": "VllmReadinessGateFailed", "expr": "%s == 0" % GATE_METRIC,
         "labels": {"severity": "critical"},
         "annotations": {"summary": "The readiness gate failed on {{ $labels.instance }}",
                         "description": "The last rollout of {{ $labels.release }} did not pass "
                                        "its gate (vllm_rollout)."}},
        {"alert": "NodeExporterDown", "expr": 'up{job="node"} == 0',
         "for": settings["server_down_for"], "labels": {"severity": "warning"},
         "annotations": {"summary": "Node exporter on {{ $labels.instance }} is down"}},
    ]
    return {"groups": [{"name": "vllm", "rules": rules}]}


def _label(value):
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def gate_textfile(rollout):
    """The node exporter's textfile for a server's last gate, from vllm_rollout's
    ``vllm_service_rollout`` (``ready``, ``release`` or ``attempted_release``)."""
    rollout = rollout or {}
    release = rollout.get("attempted_release") or rollout.get("release") or ""
    return ("# HELP %s 1 when the last readiness gate of vllm_rollout passed, 0 when it failed.\n"
            "# TYPE %s gauge\n%s{release=\"%s\"} %d\n"
            % (GATE_METRIC, GATE_METRIC, GATE_METRIC, _label(release), 1 if rollout.get("ready") else 0))


def _admin_base(facts):
    """The router's admin API as the router host itself reaches it: its bind address, a wildcard
    one on loopback (the admin endpoints answer without a key, so they stay on loopback)."""
    facts = facts or {}
    host = str(facts.get("vllm_router_host", "127.0.0.1")).strip("[]")
    if host in WILDCARDS or host == "[::]":
        host = "127.0.0.1" if host in ("0.0.0.0", "") else "::1"
    if ":" in host:
        host = "[%s]" % host
    return "http://%s:%d" % (host, int(facts.get("vllm_router_port", 30000)))


def drain_plan(server, hostvars, servers, routers):
    """What a rollout of ``server`` tells the routers: ``{worker_url, routers: [{name, list_url,
    remove_url, add_url}]}``. No routers (the group vllm_routers empty) or ``server`` not in
    vllm_servers: ``routers`` is empty (nothing to drain). ``worker_url`` is the URL the router
    holds for the server (``backend``'s, the same string the router was started with). A host
    with ``vllm_instances``: nothing either (vllm_rollout does not drain instances: it ends its
    role after starting and gating them, and the routers hold one URL per instance, not this)."""
    hostvars = hostvars or {}
    if server not in list(servers or []) or not list(routers or []) or instances_of(hostvars.get(server)):
        return {"worker_url": None, "routers": []}
    plan = []
    worker = None
    for name in routers:
        url = backend(server, hostvars.get(server, {}), name)["url"]
        worker = worker or url
        base = _admin_base(hostvars.get(name, {}))
        query = "?url=" + quote(url, safe="")
        plan.append({"name": name, "list_url": base + "/list_workers",
                     "remove_url": base + "/remove_worker" + query,
                     "add_url": base + "/add_worker" + query})
    return {"worker_url": worker, "routers": plan}


_RUNNING = re.compile(r"^vllm:num_requests_(?:running|waiting)(\{[^}]*\})?\s+([0-9.eE+-]+|NaN)\s*", re.M)


def running_requests(metrics_text):
    """The requests a server holds (running and waiting, summed over its engines) from its
    /metrics text; None when the metrics are absent (an older vLLM, or not a vLLM)."""
    found = _RUNNING.findall(metrics_text or "")
    if not found:
        return None
    total = 0.0
    for _labels, value in found:
        try:
            total += float(value)
        except ValueError:
            return None
    return int(total) if total == int(total) else total


def workers_state(backends_, listed, health=None):
    """Each backend's state behind a router: ``[{name, url, state}]``: ``out`` when the router's
    /list_workers does not hold its URL (drained, or removed), ``unhealthy`` when the router's
    /health answer (``health``: its text when not 200; vllm-router 0.1.17 names the failing
    workers there) names it, ``healthy`` otherwise. ``listed``: the /list_workers answer
    (``{"urls": [...]}`` in vllm-router 0.1.17, or a list of URLs or of {url})."""
    if isinstance(listed, dict):
        listed = listed.get("urls", listed.get("workers", []))
    urls = set()
    for item in listed or []:
        urls.add((item.get("url") if isinstance(item, dict) else str(item)).rstrip("/"))
    health = health if isinstance(health, str) else ""
    states = []
    for b in backends_ or []:
        url = b["url"].rstrip("/")
        state = "out" if url not in urls else ("unhealthy" if url in health else "healthy")
        states.append({"name": b["name"], "url": b["url"], "state": state})
    return states


def router_lines(result):
    """The router's summary lines: its URL, then each backend with its state."""
    result = result or {}
    lines = ["vLLM router at %s (vllm-router %s, %s)" % (result.get("url"), result.get("version"),
                                                          result.get("policy"))]
    for worker in result.get("workers") or []:
        lines.append("  %s %s: %s" % (worker.get("name"), worker.get("url"), worker.get("state")))
    return lines
