"""The Grafana dashboards vllm_monitor copies (roles/vllm_monitor/files/dashboards/*.json): each one
parses as JSON, has a title and a uid (Grafana's provisioning keys dashboards by uid), and every
metric name with a colon that its panels or variables query is a vLLM one (``vllm:``). When
dashboards are there, each vLLM metric the alert rules use (vllm_router.alert_rules) is shown by
at least one of them, so a firing alert has a panel to look at.

The project keeps no list of the metrics vLLM exports, so a name is checked by its prefix only.
The checker itself is tested on small dashboards written here."""
import glob
import json
import os
import re

import pytest

import vllm_router
from vllm_testlib import ROOT

FOLDER = os.path.join(ROOT, "roles", "vllm_monitor", "files", "dashboards")
DASHBOARDS = sorted(glob.glob(os.path.join(FOLDER, "*.json")))
MONITOR = {"server_down_for": "1m", "kv_cache_threshold": 0.9, "kv_cache_for": "2m", "waiting_for": "5m"}

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GRAFANA_VARIABLE = re.compile(r"\$\{[^}]*\}")  # ${model_name:regex} has a colon
_RANGE = re.compile(r"\[[^\]]*\]")  # [5m:1m] (a subquery) has a colon
_IDENTIFIER = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def colon_names(expr):
    """The metric names with a colon in a PromQL expression (labels, functions and keywords never
    have one): string literals, Grafana's ${...} variables and [...] ranges left out."""
    bare = _RANGE.sub(" ", _GRAFANA_VARIABLE.sub(" ", _STRING.sub(" ", expr)))
    return {name for name in _IDENTIFIER.findall(bare) if ":" in name}


def _panels(panels):
    for panel in panels or []:
        yield panel
        yield from _panels(panel.get("panels"))  # a collapsed row keeps its panels


def queries(dashboard):
    """Every PromQL expression of a dashboard: its panels' targets (rows' panels included) and its
    template variables' queries."""
    found = [target["expr"] for panel in _panels(dashboard.get("panels"))
             for target in panel.get("targets") or [] if isinstance(target.get("expr"), str)]
    for variable in (dashboard.get("templating") or {}).get("list") or []:
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        if variable.get("type") == "query" and isinstance(query, str):
            found.append(query)
    return found


def problems(dashboard):
    """What is wrong with a dashboard (a list of sentences; empty: nothing)."""
    found = ["no %s" % key for key in ("title", "uid")
             if not isinstance(dashboard.get(key), str) or not dashboard[key].strip()]
    if not queries(dashboard):
        found.append("no Prometheus query")
    for expr in queries(dashboard):
        found.extend("%s (in %r) is not a vLLM metric (vllm:...)" % (name, expr)
                     for name in sorted(colon_names(expr)) if not name.startswith("vllm:"))
    return found


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
