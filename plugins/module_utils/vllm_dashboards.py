# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vllm_ops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""vLLM's Grafana dashboards for vllm_monitor: where they are fetched from (vLLM's repository at
the pinned release) and whether what came back is a dashboard the monitor can use.

vLLM's repository is not part of this project (its files are not committed here): the role fetches
the dashboards on the controller at deploy time from the release's tag, checks each one with
``check`` and writes only those that pass. A dashboard is usable when it parses as a JSON object,
has a title and a uid (Grafana's provisioning keys dashboards by uid), queries Prometheus at least
once, and every metric name with a colon that it queries is a vLLM one (``vllm:``)."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

# Where the release keeps them: vLLM moved the folder over time.
FOLDER = "examples/observability/dashboards/grafana"
NAMES = ("vllm_overview.json", "vllm_instances.json", "vllm_kv_cache.json", "vllm_speculative_decoding.json")
MAX_BYTES = 2 * 1024 * 1024

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GRAFANA_VARIABLE = re.compile(r"\$\{[^}]*\}")  # ${model_name:regex} has a colon
_RANGE = re.compile(r"\[[^\]]*\]")  # [5m:1m] (a subquery) has a colon
_IDENTIFIER = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\.json$")


def colon_names(expr):
    """The metric names with a colon in a PromQL expression (labels, functions and keywords never
    have one): string literals, Grafana's ${...} variables and [...] ranges left out."""
    bare = _RANGE.sub(" ", _GRAFANA_VARIABLE.sub(" ", _STRING.sub(" ", expr)))
    return {name for name in _IDENTIFIER.findall(bare) if ":" in name}


def _panels(panels):
    for panel in panels or []:
        if isinstance(panel, dict):
            yield panel
            for child in _panels(panel.get("panels")):  # a collapsed row keeps its panels
                yield child


def queries(dashboard):
    """Every PromQL expression of a dashboard: its panels' targets (rows' panels included) and its
    template variables' queries."""
    found = [target["expr"] for panel in _panels(dashboard.get("panels"))
             for target in panel.get("targets") or [] if isinstance(target, dict) and isinstance(target.get("expr"), str)]
    for variable in (dashboard.get("templating") or {}).get("list") or []:
        if not isinstance(variable, dict):
            continue
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query")
        if variable.get("type") == "query" and isinstance(query, str):
            found.append(query)
    return found


def problems(dashboard):
    """What is wrong with a dashboard (a list of sentences; empty: nothing)."""
    if not isinstance(dashboard, dict):
        return ["not a JSON object"]
    found = ["no %s" % key for key in ("title", "uid")
             if not isinstance(dashboard.get(key), str) or not dashboard[key].strip()]
    exprs = queries(dashboard)
    if not exprs:
        found.append("no Prometheus query")
    for expr in exprs:
        found.extend("%s (in %r) is not a vLLM metric (vllm:...)" % (name, expr)
                     for name in sorted(colon_names(expr)) if not name.startswith("vllm:"))
    return found


def check(name, text):
    """One fetched file: {'name', 'ok', 'problems', 'content'}; content is the text unchanged when
    it is usable, else empty."""
    result = {"name": name, "ok": False, "problems": [], "content": ""}
    if not _NAME.match(name or ""):
        result["problems"] = ["%r is not a dashboard file name (letters, digits, _ . -, ending .json)" % (name,)]
        return result
    if len(text or "") > MAX_BYTES:
        result["problems"] = ["%d characters, more than a dashboard has (%d at most)" % (len(text), MAX_BYTES)]
        return result
    try:
        dashboard = json.loads(text or "")
    except ValueError as err:
        result["problems"] = ["not JSON: %s" % err]
        return result
    result["problems"] = problems(dashboard)
    if not result["problems"]:
        result.update(ok=True, content=text)
    return result


def urls(base_url, names=NAMES):
    """[{'name', 'url'}] for each dashboard under base_url (a folder URL; trailing slash or not)."""
    base = (base_url or "").rstrip("/")
    return [{"name": name, "url": "%s/%s" % (base, name)} for name in names]


def release_url(version, repository="https://raw.githubusercontent.com/vllm-project/vllm"):
    """The folder URL of vLLM's dashboards at the release's tag (v<version>)."""
    return "%s/v%s/%s" % (repository.rstrip("/"), version, FOLDER)


def fetched(results):
    """The loop results of the role's fetch (ansible.builtin.uri over ``urls``), each checked:
    [{'name', 'url', 'ok', 'problems', 'why', 'content'}]. A fetch that failed is named with what the
    server or the network said."""
    checked = []
    for result in results or []:
        item = result.get("item") or {}
        status = result.get("status")
        if status != 200:
            said = "HTTP %s" % status if isinstance(status, int) and status > 0 else (result.get("msg") or "no answer")
            one = {"name": item.get("name"), "ok": False, "content": "",
                   "problems": ["not fetched from %s: %s" % (item.get("url"), said)]}
        else:
            one = check(item.get("name"), result.get("content"))
        one["url"] = item.get("url")
        one["why"] = "%s: %s" % (one["name"], "; ".join(one["problems"])) if one["problems"] else ""
        checked.append(one)
    return checked
