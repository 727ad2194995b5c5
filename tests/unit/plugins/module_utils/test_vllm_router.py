"""vllm_router: the router's backends and argv, the roles' input checks, and Prometheus's
configuration and alert rules (checked by promtool when it is installed: `apt-get install
prometheus`)."""
import os
import shutil
import subprocess

import pytest
import yaml

import vllm_router as r
from vllm_testlib import load_filter

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (apt-get install prometheus)")

ROUTER = {"host": "127.0.0.1", "port": 30000, "policy": "round_robin", "health_interval": 10,
          "health_timeout": 5, "health_failure_threshold": 3, "health_success_threshold": 2,
          "request_timeout": 1800, "prometheus_host": "127.0.0.1", "prometheus_port": 29000,
          "log_level": "info", "version": "0.1.17", "allow_open_admin": False}
MONITOR = {"node_exporter_port": 9100, "scrape_interval": "15s", "server_down_for": "1m",
           "kv_cache_threshold": 0.9, "kv_cache_for": "2m", "waiting_for": "5m"}
HOSTVARS = {
    "ws-01": {"vllm_service_host": "0.0.0.0", "vllm_service_port": 8000, "ansible_host": "10.0.0.11"},
    "ws-02": {"vllm_service_host": "10.0.0.12", "vllm_service_port": 8001,
              "vllm_service_tls_cert": "-----BEGIN CERTIFICATE-----"},
    "ws-03": {"vllm_service_host": "::", "ansible_host": "fd00::13"},
    "lo": {},
}


def test_backend_urls_follow_the_service_url():
    found = r.backends(["ws-01", "ws-02", "ws-03"], HOSTVARS, "router-1")
    assert [b["url"] for b in found] == ["http://10.0.0.11:8000", "https://10.0.0.12:8001",
                                         "http://[fd00::13]:8000"]
    assert found[1]["health_url"] == "https://10.0.0.12:8001/health"
    assert [b["target"] for b in found] == ["10.0.0.11:8000", "10.0.0.12:8001", "[fd00::13]:8000"]
    assert [b["scheme"] for b in found] == ["http", "https", "http"]


def test_a_wildcard_bind_without_ansible_host_uses_the_inventory_name():
    assert r.backend("ws-09.example", {"vllm_service_host": "0.0.0.0"})["url"] == "http://ws-09.example:8000"


def test_a_loopback_server_is_reachable_only_from_its_own_host():
    assert r.backends(["lo"], HOSTVARS, "lo")[0]["url"] == "http://127.0.0.1:8000"
    with pytest.raises(r.RouterError, match="server lo: vllm_service_host is 127.0.0.1"):
        r.backends(["lo"], HOSTVARS, "router-1")


def test_no_server_is_an_error():
    with pytest.raises(r.RouterError, match="vllm_servers is empty"):
        r.backends([], HOSTVARS)


def test_router_argv_names_every_backend_and_no_secret():
    found = r.backends(["ws-01", "ws-02"], HOSTVARS, "router-1")
    argv = r.router_argv("/opt/vllm-router/venv/", ROUTER, found)
    assert argv[0] == "/opt/vllm-router/venv/bin/vllm-router"
    start = argv.index("--worker-urls")
    assert argv[start + 1:start + 3] == ["http://10.0.0.11:8000", "https://10.0.0.12:8001"]
    assert argv[start + 3].startswith("--")
    assert argv[argv.index("--health-check-endpoint") + 1] == "/health"
    assert argv[argv.index("--policy") + 1] == "round_robin"
    assert argv[argv.index("--prometheus-port") + 1] == "29000"
    assert "--api-key" not in argv
    assert all(isinstance(a, str) for a in argv)


def test_router_input_errors_name_variable_value_and_what_is_accepted():
    assert r.router_input_errors(ROUTER) == []
    bad = dict(ROUTER, port=70000, policy="fastest", health_interval=0, log_level="loud", version="latest",
               host="0.0.0.0")
    errors = {e["variable"]: e for e in r.router_input_errors(bad)}
    assert set(errors) == {"vllm_router_port", "vllm_router_policy", "vllm_router_health_interval",
                           "vllm_router_log_level", "vllm_router_version", "vllm_router_host"}
    assert errors["vllm_router_port"]["value"] == 70000
    assert "round_robin" in errors["vllm_router_policy"]["accepted"]
    assert "allow_open_admin" in errors["vllm_router_host"]["accepted"]
    assert r.router_input_errors(dict(ROUTER, host="0.0.0.0", allow_open_admin=True)) == []
    same = r.router_input_errors(dict(ROUTER, prometheus_port=30000))
    assert [e["variable"] for e in same] == ["vllm_router_prometheus_port"]
    assert r.router_input_errors(dict(ROUTER, port=True))[0]["variable"] == "vllm_router_port"
    # extra vars arrive as strings
    assert r.router_input_errors(dict(ROUTER, port="30001", health_interval="5", host="0.0.0.0",
                                      allow_open_admin="true")) == []
    assert [e["variable"] for e in r.router_input_errors(dict(ROUTER, port="70000"))] == ["vllm_router_port"]


def test_monitor_input_errors():
    assert r.monitor_input_errors(MONITOR) == []
    assert r.monitor_input_errors(dict(MONITOR, kv_cache_threshold="0.95", node_exporter_port="9100")) == []
    assert r.alert_rules(dict(MONITOR, kv_cache_threshold="0.95"))["groups"][0]["rules"][1]["expr"] == \
        "vllm:kv_cache_usage_perc > 0.95"
    bad = dict(MONITOR, node_exporter_port=0, scrape_interval="15", kv_cache_threshold=90, waiting_for="5 min")
    assert [e["variable"] for e in r.monitor_input_errors(bad)] == [
        "vllm_monitor_node_exporter_port", "vllm_monitor_scrape_interval", "vllm_monitor_waiting_for",
        "vllm_monitor_kv_cache_threshold"]


def test_targets_of_nodes_and_routers():
    assert r.node_targets(["ws-01", "ws-03", "lo"], HOSTVARS, 9100) == [
        {"name": "ws-01", "target": "10.0.0.11:9100"}, {"name": "ws-03", "target": "[fd00::13]:9100"},
        {"name": "lo", "target": "lo:9100"}]
    routers = {"rt": {"ansible_host": "10.0.0.5", "vllm_router_prometheus_host": "0.0.0.0"}, "rt-lo": {}}
    assert r.router_targets(["rt", "rt-lo"], routers, "mon") == [{"name": "rt", "target": "10.0.0.5:29000"}]
    assert r.router_targets(["rt-lo"], routers, "rt-lo") == [{"name": "rt-lo", "target": "127.0.0.1:29000"}]


def _config(tmp_path):
    servers = r.backends(["ws-01", "ws-02"], HOSTVARS, "router-1")
    nodes = r.node_targets(["ws-01", "ws-02"], HOSTVARS, 9100)
    settings = {"scrape_interval": "15s", "rule_files": [str(tmp_path / "vllm.rules.yml")],
                "ca_file": "/etc/prometheus/vllm-ca.pem", "ca_given": True}
    return r.scrape_config(servers, nodes, [{"name": "rt", "target": "10.0.0.5:29000"}], settings)


def test_scrape_config_jobs(tmp_path):
    config = _config(tmp_path)
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {"vllm", "vllm_tls", "node", "vllm_router"}
    assert jobs["vllm"]["static_configs"] == [{"targets": ["10.0.0.11:8000"], "labels": {"host": "ws-01"}}]
    assert jobs["vllm_tls"]["scheme"] == "https"
    assert jobs["vllm_tls"]["tls_config"] == {"ca_file": "/etc/prometheus/vllm-ca.pem"}
    # vLLM guards /v1 only: /metrics needs no key, so the config holds no secret
    assert "authorization" not in yaml.safe_dump(config)
    plain = r.scrape_config(r.backends(["ws-02"], HOSTVARS), [], [], {"scrape_interval": "15s",
                            "ca_file": "/etc/prometheus/vllm-ca.pem", "ca_given": False})
    assert "tls_config" not in plain["scrape_configs"][0]
    assert plain["rule_files"] == []


def test_gate_textfile():
    text = r.gate_textfile({"ready": False, "attempted_release": 'rel"2'})
    assert 'vllm_readiness_gate_ok{release="rel\\"2"} 0' in text
    assert text.endswith("} 0\n")
    assert r.gate_textfile({"ready": True, "release": "rel-1"}).endswith('{release="rel-1"} 1\n')


def test_filters_are_registered():
    filters = load_filter().FilterModule().filters()
    for name in ("vllm_router_backends", "vllm_router_argv", "vllm_router_input_errors",
                 "vllm_monitor_input_errors", "vllm_node_targets", "vllm_router_targets",
                 "vllm_prometheus_config", "vllm_prometheus_rules", "vllm_gate_textfile"):
        assert name in filters
    with pytest.raises(Exception, match="vllm_router_backends: server lo"):
        filters["vllm_router_backends"](["lo"], HOSTVARS, "router-1")


def _write(path, data):
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def _promtool(*args, cwd=None):
    return subprocess.run([PROMTOOL] + list(args), capture_output=True, text=True, timeout=60, cwd=cwd)


@needs_promtool
def test_promtool_accepts_the_config_and_rules(tmp_path):
    rules = _write(tmp_path / "vllm.rules.yml", r.alert_rules(MONITOR))
    config = _write(tmp_path / "prometheus.yml", _config(tmp_path))
    done = _promtool("check", "rules", rules)
    assert done.returncode == 0, done.stdout + done.stderr
    # --syntax-only: the CA file named for the https job need not exist here
    done = _promtool("check", "config", "--syntax-only", config)
    assert done.returncode == 0, done.stdout + done.stderr


ALERT_TESTS = {
    "rule_files": ["vllm.rules.yml"],
    "evaluation_interval": "1m",
    "tests": [
        {"interval": "1m",
         "input_series": [
             {"series": 'up{job="vllm", instance="10.0.0.11:8000", host="ws-01"}', "values": "1 1 0 0 0 0"},
             {"series": 'up{job="vllm", instance="10.0.0.12:8000", host="ws-02"}', "values": "1 1 1 1 1 1"}],
         "alert_rule_test": [
             {"eval_time": "2m", "alertname": "VllmServerDown", "exp_alerts": []},
             {"eval_time": "4m", "alertname": "VllmServerDown", "exp_alerts": [
                 {"exp_labels": {"severity": "critical", "job": "vllm", "instance": "10.0.0.11:8000",
                                 "host": "ws-01"},
                  "exp_annotations": {"summary": "vLLM server 10.0.0.11:8000 is down",
                                      "description": "Prometheus cannot scrape /metrics of 10.0.0.11:8000."}}]}]},
        {"interval": "1m",
         "input_series": [
             {"series": 'vllm:kv_cache_usage_perc{instance="a:8000", model_name="m"}', "values": "0.5 0.95 0.95 0.95 0.95"},
             {"series": 'vllm:kv_cache_usage_perc{instance="b:8000", model_name="m"}', "values": "0.9 0.9 0.9 0.9 0.9"}],
         "alert_rule_test": [
             {"eval_time": "2m", "alertname": "VllmKvCacheFull", "exp_alerts": []},
             {"eval_time": "3m", "alertname": "VllmKvCacheFull", "exp_alerts": [
                 {"exp_labels": {"severity": "warning", "instance": "a:8000", "model_name": "m"},
                  "exp_annotations": {"summary": "KV cache of a:8000 above 90 %",
                                      "description": "vllm:kv_cache_usage_perc is 0.95: requests will "
                                                     "queue or be preempted."}}]}]},
        {"interval": "1m",
         "input_series": [
             {"series": 'vllm:num_requests_waiting{instance="a:8000", model_name="m"}', "values": "0 3 3 3 3 3 3 3"},
             {"series": 'vllm:num_requests_waiting{instance="b:8000", model_name="m"}', "values": "2 2 2 0 2 2 2 2"}],
         "alert_rule_test": [
             {"eval_time": "5m", "alertname": "VllmRequestsWaiting", "exp_alerts": []},
             {"eval_time": "6m", "alertname": "VllmRequestsWaiting", "exp_alerts": [
                 {"exp_labels": {"severity": "warning", "instance": "a:8000", "model_name": "m"},
                  "exp_annotations": {"summary": "Requests waiting on a:8000",
                                      "description": "vllm:num_requests_waiting has been above 0 for 5m."}}]}]},
        {"interval": "1m",
         "input_series": [
             {"series": 'vllm_readiness_gate_ok{instance="a:9100", release="r2"}', "values": "1 0 0"},
             {"series": 'vllm_readiness_gate_ok{instance="b:9100", release="r1"}', "values": "1 1 1"}],
         "alert_rule_test": [
             {"eval_time": "0m", "alertname": "VllmReadinessGateFailed", "exp_alerts": []},
             {"eval_time": "1m", "alertname": "VllmReadinessGateFailed", "exp_alerts": [
                 {"exp_labels": {"severity": "critical", "instance": "a:9100", "release": "r2"},
                  "exp_annotations": {"summary": "The readiness gate failed on a:9100",
                                      "description": "The last rollout of r2 did not pass its gate (vllm_rollout)."}}]}]},
    ],
}


@needs_promtool
def test_promtool_alerts_fire(tmp_path):
    _write(tmp_path / "vllm.rules.yml", r.alert_rules(MONITOR))
    tests = _write(tmp_path / "vllm.rules.test.yml", ALERT_TESTS)
    done = _promtool("test", "rules", os.path.basename(tests), cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_role_pins_the_release_of_the_compat_table():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
    with open(os.path.join(root, "data", "vllm_compat.yml")) as handle:
        table = yaml.safe_load(handle)
    with open(os.path.join(root, "roles", "vllm_router", "defaults", "main.yml")) as handle:
        defaults = yaml.safe_load(handle)
    assert defaults["vllm_router_version"] == table["router"]["version"]
    assert table["router"]["wheel"].startswith("vllm_router-%s-" % table["router"]["version"])


# draining: the router admin URLs a rollout calls and the worker URL it names
def test_drain_plan_names_each_router_admin_on_its_own_loopback():
    hostvars = dict(HOSTVARS, **{"router-1": {}, "router-2": {"vllm_router_host": "0.0.0.0",
                                                                "vllm_router_port": 31000},
                                 "router-3": {"vllm_router_host": "::1"}})
    plan = r.drain_plan("ws-01", hostvars, ["ws-01", "ws-02"], ["router-1", "router-2", "router-3"])
    assert plan["worker_url"] == "http://10.0.0.11:8000"
    assert [p["name"] for p in plan["routers"]] == ["router-1", "router-2", "router-3"]
    assert plan["routers"][0]["remove_url"] == \
        "http://127.0.0.1:30000/remove_worker?url=http%3A%2F%2F10.0.0.11%3A8000"
    assert plan["routers"][1]["add_url"] == \
        "http://127.0.0.1:31000/add_worker?url=http%3A%2F%2F10.0.0.11%3A8000"
    assert plan["routers"][2]["list_url"] == "http://[::1]:30000/list_workers"


def test_drain_plan_worker_url_is_the_one_the_router_was_started_with():
    plan = r.drain_plan("ws-03", HOSTVARS, ["ws-03"], ["router-1"])
    argv = r.router_argv("/opt/vllm-router", ROUTER, r.backends(["ws-03"], HOSTVARS, "router-1"))
    assert plan["worker_url"] in argv
    assert "url=http%3A%2F%2F%5Bfd00%3A%3A13%5D%3A8000" in plan["routers"][0]["remove_url"]


@pytest.mark.parametrize("server,servers,routers", [
    ("ws-01", ["ws-01"], []), ("ws-01", ["ws-01"], None), ("other", ["ws-01"], ["router-1"]),
])
def test_drain_plan_empty_without_routers_or_outside_the_servers(server, servers, routers):
    assert r.drain_plan(server, HOSTVARS, servers, routers) == {"worker_url": None, "routers": []}


def test_drain_plan_refuses_a_server_on_its_own_loopback():
    with pytest.raises(r.RouterError):
        r.drain_plan("lo", HOSTVARS, ["lo"], ["router-1"])


def test_running_requests_sums_running_and_waiting_and_is_none_without_them():
    text = ("# HELP vllm:num_requests_running Number of requests.\n"
            "# TYPE vllm:num_requests_running gauge\n"
            'vllm:num_requests_running{engine="0",model_name="m"} 2.0\n'
            'vllm:num_requests_running{engine="1",model_name="m"} 1.0\n'
            'vllm:num_requests_waiting{engine="0",model_name="m"} 7.0\n')
    assert r.running_requests(text) == 10
    assert r.running_requests("vllm:num_requests_running 0.0\n") == 0
    assert r.running_requests("up 1\n") is None
    assert r.running_requests(None) is None


def test_workers_state_from_list_workers_and_health():
    found = r.backends(["ws-01", "ws-02"], HOSTVARS, "router-1")
    assert r.workers_state(found, {"urls": ["http://10.0.0.11:8000/"]}) == [
        {"name": "ws-01", "url": "http://10.0.0.11:8000", "state": "healthy"},
        {"name": "ws-02", "url": "https://10.0.0.12:8001", "state": "out"}]
    both = {"urls": ["http://10.0.0.11:8000", "https://10.0.0.12:8001"]}
    assert [w["state"] for w in r.workers_state(found, both, "unhealthy: https://10.0.0.12:8001")] == \
        ["healthy", "unhealthy"]
    assert r.workers_state(found, [{"url": "https://10.0.0.12:8001"}])[1]["state"] == "healthy"
    assert [w["state"] for w in r.workers_state(found, None)] == ["out", "out"]


def test_router_lines_name_the_url_and_each_backend():
    lines = r.router_lines({"url": "http://10.0.0.5:30000/v1", "version": "0.1.17", "policy": "round_robin",
                            "workers": [{"name": "ws-01", "url": "http://10.0.0.11:8000", "state": "healthy"}]})
    assert lines == ["vLLM router at http://10.0.0.5:30000/v1 (vllm-router 0.1.17, round_robin)",
                     "  ws-01 http://10.0.0.11:8000: healthy"]


# vllm_instances: one backend and one scrape target per instance
INSTANCE_HOSTVARS = dict(HOSTVARS, **{
    "gpu-1": {"vllm_service_host": "0.0.0.0", "ansible_host": "10.0.0.21",
              "vllm_instances": [{"name": "alpha", "port": 8001, "model": "org/a"},
                                 {"name": "beta", "port": "8002", "model": "org/a", "gpus": [1]}]},
    "gpu-tls": {"vllm_service_host": "10.0.0.22", "vllm_service_tls_cert": "-----BEGIN CERTIFICATE-----",
                "vllm_instances": [{"name": "one", "port": 9001}]},
    "gpu-lo": {"vllm_instances": [{"name": "alpha", "port": 8001}]},
    "gpu-empty": {"vllm_service_host": "0.0.0.0", "ansible_host": "10.0.0.23", "vllm_instances": []},
})


def test_a_host_with_instances_gives_one_backend_per_instance():
    found = r.backends(["ws-01", "gpu-1", "gpu-tls"], INSTANCE_HOSTVARS, "router-1")
    assert [b["name"] for b in found] == ["ws-01", "gpu-1/alpha", "gpu-1/beta", "gpu-tls/one"]
    assert [b["url"] for b in found] == ["http://10.0.0.11:8000", "http://10.0.0.21:8001",
                                         "http://10.0.0.21:8002", "https://10.0.0.22:9001"]
    assert found[1] == {"name": "gpu-1/alpha", "url": "http://10.0.0.21:8001",
                        "health_url": "http://10.0.0.21:8001/health", "target": "10.0.0.21:8001",
                        "scheme": "http", "host": "gpu-1", "instance": "alpha"}
    assert found[3]["scheme"] == "https" and found[3]["health_url"] == "https://10.0.0.22:9001/health"
    # a host without instances: exactly the backend it always had
    assert found[0] == r.backend("ws-01", HOSTVARS["ws-01"], "router-1")
    assert "instance" not in found[0] and "host" not in found[0]
    argv = r.router_argv("/opt/vllm-router", ROUTER, found)
    start = argv.index("--worker-urls")
    assert argv[start + 1:start + 5] == [b["url"] for b in found]


def test_an_empty_instance_list_is_the_one_server():
    assert r.backends(["gpu-empty"], INSTANCE_HOSTVARS, "router-1") == [
        r.backend("gpu-empty", INSTANCE_HOSTVARS["gpu-empty"], "router-1")]
    assert r.backends(["gpu-empty"], INSTANCE_HOSTVARS)[0]["name"] == "gpu-empty"
    assert r.instances_of({"vllm_instances": "x"}) is None and r.instances_of(None) is None


def test_instances_on_loopback_are_reachable_only_from_their_own_host():
    assert [b["url"] for b in r.backends(["gpu-lo"], INSTANCE_HOSTVARS, "gpu-lo")] == ["http://127.0.0.1:8001"]
    with pytest.raises(r.RouterError, match=r"server gpu-lo \(instance alpha\): vllm_service_host is 127.0.0.1"):
        r.backends(["gpu-lo"], INSTANCE_HOSTVARS, "router-1")


@pytest.mark.parametrize("item", [{"name": "a"}, {"port": 8001}, {"name": "a", "port": "x"},
                                  {"name": "a", "port": 0}, "alpha"])
def test_an_instance_without_a_name_or_port_is_refused(item):
    with pytest.raises(r.RouterError, match=r"server h: vllm_instances\[0\] is .*accepted: a mapping with a name"):
        r.backends(["h"], {"h": {"vllm_service_host": "0.0.0.0", "vllm_instances": [item]}}, "router-1")


def test_scrape_config_has_one_target_per_instance_labelled_with_its_name():
    servers = r.backends(["ws-01", "gpu-1", "gpu-tls"], INSTANCE_HOSTVARS, "mon")
    config = r.scrape_config(servers, [], [], {"scrape_interval": "15s", "ca_file": "/etc/prometheus/vllm-ca.pem",
                                               "ca_given": True})
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert jobs["vllm"]["static_configs"] == [
        {"targets": ["10.0.0.11:8000"], "labels": {"host": "ws-01"}},
        {"targets": ["10.0.0.21:8001"], "labels": {"host": "gpu-1", "vllm_instance": "alpha"}},
        {"targets": ["10.0.0.21:8002"], "labels": {"host": "gpu-1", "vllm_instance": "beta"}}]
    assert jobs["vllm_tls"]["static_configs"] == [
        {"targets": ["10.0.0.22:9001"], "labels": {"host": "gpu-tls", "vllm_instance": "one"}}]


def test_drain_plan_never_meets_an_instance_backend():
    hostvars = dict(INSTANCE_HOSTVARS, **{"router-1": {}})
    servers = ["ws-01", "gpu-1", "gpu-lo"]
    # vllm_rollout ends its role after the instances' gates: an instance host is never drained,
    # and its plan is empty even where backend() would refuse it (loopback) or name another URL
    for host in ("gpu-1", "gpu-lo", "gpu-tls"):
        assert r.drain_plan(host, hostvars, servers + ["gpu-tls"], ["router-1"]) == {"worker_url": None,
                                                                                    "routers": []}
    # the one-server hosts behind the same router are drained as before, at their own URL
    plan = r.drain_plan("ws-01", hostvars, servers, ["router-1"])
    assert plan["worker_url"] == "http://10.0.0.11:8000"
    assert plan["worker_url"] not in [b["url"] for b in r.backends(["gpu-1"], hostvars, "router-1")]
    # an empty instance list is the one server: drained as before
    assert r.drain_plan("gpu-empty", hostvars, ["gpu-empty"], ["router-1"])["worker_url"] == "http://10.0.0.23:8000"


def test_workers_state_names_each_instance():
    found = r.backends(["gpu-1"], INSTANCE_HOSTVARS, "router-1")
    states = r.workers_state(found, {"urls": ["http://10.0.0.21:8001"]})
    assert states == [{"name": "gpu-1/alpha", "url": "http://10.0.0.21:8001", "state": "healthy"},
                      {"name": "gpu-1/beta", "url": "http://10.0.0.21:8002", "state": "out"}]
