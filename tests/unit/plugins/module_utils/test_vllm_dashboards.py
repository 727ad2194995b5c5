"""vllm_dashboards: where vllm_monitor fetches vLLM's Grafana dashboards, and which fetched files
it writes. The folder's own files and the PromQL checker are tested in
tests/unit/roles/test_vllm_monitor_dashboards.py."""
import json
import os

import pytest
import yaml

import vllm_dashboards
from vllm_testlib import ROOT

GOOD = {"title": "vLLM", "uid": "vllm-x",
        "panels": [{"type": "stat", "targets": [{"expr": "sum(vllm:num_requests_waiting)"}]}]}


def _yaml(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def test_the_default_url_is_the_pinned_release_tag():
    pinned = _yaml("data", "vllm_compat.yml")["backends"]["cuda"]["default"]
    defaults = _yaml("roles", "vllm_monitor", "defaults", "main.yml")
    assert defaults["vllm_monitor_dashboards_url"] == vllm_dashboards.release_url(pinned)
    assert "/v%s/" % pinned in defaults["vllm_monitor_dashboards_url"]


def test_urls_join_the_folder_and_each_name():
    assert vllm_dashboards.urls("http://127.0.0.1:1/d/", ["a.json"]) == [
        {"name": "a.json", "url": "http://127.0.0.1:1/d/a.json"}]
    assert [u["name"] for u in vllm_dashboards.urls("http://x")] == list(vllm_dashboards.NAMES)


def test_a_good_dashboard_is_kept_unchanged():
    text = json.dumps(GOOD, indent=3)
    assert vllm_dashboards.check("vllm_overview.json", text) == {
        "name": "vllm_overview.json", "ok": True, "problems": [], "content": text}


@pytest.mark.parametrize("name, text, expected", [
    ("a.json", "<html>rate limited</html>", "not JSON"),
    ("a.json", "[1, 2]", "not a JSON object"),
    ("a.json", json.dumps(dict(GOOD, uid="")), "no uid"),
    ("a.json", json.dumps(dict(GOOD, panels=[{"targets": [{"expr": "node_load1 + up:x"}]}])),
     "up:x (in 'node_load1 + up:x') is not a vLLM metric"),
    ("../etc/passwd.json", json.dumps(GOOD), "is not a dashboard file name"),
    ("a.yaml", json.dumps(GOOD), "is not a dashboard file name"),
    ("a.json", " " * (vllm_dashboards.MAX_BYTES + 1), "more than a dashboard has"),
])
def test_what_is_not_a_usable_dashboard_is_named_and_not_kept(name, text, expected):
    result = vllm_dashboards.check(name, text)
    assert result["ok"] is False and result["content"] == ""
    assert any(expected in problem for problem in result["problems"]), result["problems"]


def test_fetch_results_are_checked_and_failures_named():
    items = vllm_dashboards.urls("http://127.0.0.1:9/d", ["ok.json", "missing.json", "down.json", "bad.json"])
    results = [
        {"item": items[0], "status": 200, "content": json.dumps(GOOD)},
        {"item": items[1], "status": 404, "content": "Not Found"},
        {"item": items[2], "status": -1, "msg": "Status code was -1: Connection refused"},
        {"item": items[3], "status": 200, "content": "{"},
    ]
    checked = vllm_dashboards.fetched(results)
    assert [c["ok"] for c in checked] == [True, False, False, False]
    assert checked[0]["why"] == "" and checked[0]["url"] == "http://127.0.0.1:9/d/ok.json"
    assert checked[1]["why"] == "missing.json: not fetched from http://127.0.0.1:9/d/missing.json: HTTP 404"
    assert checked[2]["why"].endswith("Connection refused")
    assert checked[3]["why"].startswith("bad.json: not JSON")
    assert vllm_dashboards.fetched(None) == []
