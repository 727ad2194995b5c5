"""The Grafana dashboards vllm_monitor copies (roles/vllm_monitor/files/dashboards/*.json): each one
parses as JSON, has a title and a uid (Grafana's provisioning keys dashboards by uid), and every
metric name with a colon that its panels or variables query is a vLLM one (``vllm:``). When
dashboards are there, each vLLM metric the alert rules use (vllm_router.alert_rules) is shown by
at least one of them, so a firing alert has a panel to look at.

The project keeps no list of the metrics vLLM exports, so a name is checked by its prefix only.
The checker (plugins/module_utils/vllm_dashboards.py, which the role runs on what it fetches) is
tested on small dashboards written here."""
import glob
import json
import os

import pytest

import vllm_dashboards
import vllm_router
from vllm_testlib import ROOT

FOLDER = os.path.join(ROOT, "roles", "vllm_monitor", "files", "dashboards")
DASHBOARDS = sorted(glob.glob(os.path.join(FOLDER, "*.json")))
MONITOR = {"server_down_for": "1m", "kv_cache_threshold": 0.9, "kv_cache_for": "2m", "waiting_for": "5m"}

colon_names, queries, problems = vllm_dashboards.colon_names, vllm_dashboards.queries, vllm_dashboards.problems


def rule_metrics():
    rules = vllm_router.alert_rules(MONITOR)["groups"][0]["rules"]
    return set().union(*(colon_names(rule["expr"]) for rule in rules))


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("path", DASHBOARDS, ids=os.path.basename)
def test_each_dashboard_parses_and_queries_vllm_metrics(path):
    dashboard = _load(path)
    assert isinstance(dashboard, dict), path
    assert problems(dashboard) == [], path


@pytest.mark.skipif(not DASHBOARDS, reason="no dashboard in roles/vllm_monitor/files/dashboards (see its README)")
def test_the_dashboards_show_what_the_alerts_watch():
    shown = set().union(*(colon_names(expr) for path in DASHBOARDS for expr in queries(_load(path))))
    assert rule_metrics() - shown == set()


def test_the_uids_are_unique():
    uids = [_load(path).get("uid") for path in DASHBOARDS]
    assert len(uids) == len(set(uids))


def test_the_alert_rules_use_vllm_names():
    assert rule_metrics() == {"vllm:kv_cache_usage_perc", "vllm:num_requests_waiting"}


def test_colon_names_leave_out_strings_variables_and_ranges():
    expr = ('sum by (model_name) (rate(vllm:prompt_tokens_total{job=~"$job", instance=~"a:8000",'
            ' model_name=~"${model_name:regex}"}[$__rate_interval])) / on () group_left ()'
            ' max_over_time(vllm:num_requests_running[5m:1m]) + process_cpu_seconds_total')
    assert colon_names(expr) == {"vllm:prompt_tokens_total", "vllm:num_requests_running"}


GOOD = {
    "title": "vLLM / Test", "uid": "vllm-test",
    "panels": [
        {"type": "stat", "targets": [{"expr": "sum(vllm:num_requests_waiting)", "refId": "A"}]},
        {"type": "row", "collapsed": True, "panels": [
            {"type": "timeseries", "targets": [{"expr": "vllm:kv_cache_usage_perc", "refId": "A"}]}]},
    ],
    "templating": {"list": [
        {"type": "datasource", "name": "datasource", "query": "prometheus"},
        {"type": "query", "name": "model_name",
         "query": {"query": "label_values(vllm:num_requests_running, model_name)", "refId": "V"}}]},
}


def test_a_good_dashboard_has_no_problems():
    assert problems(GOOD) == []
    assert set().union(*(colon_names(expr) for expr in queries(GOOD))) == {
        "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:num_requests_running"}


@pytest.mark.parametrize("change, expected", [
    ({"uid": ""}, ["no uid"]),
    ({"title": None}, ["no title"]),
    ({"panels": [], "templating": {}}, ["no Prometheus query"]),
    ({"panels": [{"type": "row", "panels": [{"targets": [{"expr": "rate(job:requests:rate5m[1m])"}]}]}]},
     ["job:requests:rate5m (in 'rate(job:requests:rate5m[1m])') is not a vLLM metric (vllm:...)"]),
])
def test_a_bad_dashboard_is_named(change, expected):
    dashboard = dict(GOOD, **change)
    assert problems(dashboard) == expected
