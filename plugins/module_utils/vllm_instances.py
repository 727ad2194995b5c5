# -*- coding: utf-8 -*-
"""Several vLLM servers on one host (``vllm_instances``): the checks of the list, which GPUs each
instance gets, how the memory is shared out, the files and unit names of each, and which
instances a run removes.

Pure planning: the tasks apply it. Memory is split with the one sizing model
(:mod:`vllm_sizing`): instances that share a GPU get ``gpu_memory_utilization`` shares that sum
to at most what one server would take there, and each instance's fit is then checked by
:func:`vllm_options.compute_options` (which asks :func:`vllm_sizing.size_cuda`) with its share;
on the CPU backend the RAM left after all the instances' weights is split the same way.
Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import base64
import copy
import re

from .vllm_common import option_key
from .vllm_launcher import parse_env_file
from .vllm_options import OptionsError, compute_options, model_facts, to_cli_yaml
from .vllm_sizing import CPU_KV_CACHE_FLOOR, CPU_RAM_RESERVE, MIB, _utilization
from .vllm_validate import check_options, check_port, check_served_name

__metaclass__ = type

VAR = "vllm_instances"
# a systemd instance name and a file name at once: no '@', '/', '\', '%' or spaces
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
NAME_ACCEPTED = ("1 to 32 of lower-case letters, digits, '-' and '_', starting with a letter or "
                 "digit (it names the unit vllm@NAME.service and the files NAME.yaml, NAME.env)")
UUID_RE = re.compile(r"(GPU|MIG)-[0-9A-Za-z-]+")
KEYS = ("name", "model", "port", "gpus", "options", "served_name", "env")
INSTANCE_DIR = "instances"
UNIT_TEMPLATE = "vllm@.service"


def _fmt(value):
    return repr(value) if isinstance(value, str) else str(value)


def _host_gpus(host):
    return [g for g in (((host or {}).get("gpu") or {}).get("gpus") or []) if isinstance(g, dict)]


def _gpu_index(value, gpus):
    """The index of the host's GPU ``value`` names (an index or a UUID), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        index = int(value)
        return index if any(int(g.get("index", -1)) == index for g in gpus) else None
    if isinstance(value, str) and UUID_RE.fullmatch(value):
        for gpu in gpus:
            if gpu.get("uuid") == value:
                return int(gpu["index"])
    return None


def _gpus_accepted(gpus):
    if not gpus:
        return "an empty list: this host has no NVIDIA GPU (the CPU backend)"
    known = ", ".join("%s (%s)" % (g.get("index"), g.get("uuid") or "no UUID reported") for g in gpus)
    return "a list of this host's GPUs by index or UUID: %s" % known


def instance_errors(instances, host, router_port=None):
    """Every problem of ``instances`` (the vllm_instances list), one line each naming
    ``vllm_instances[i].field``, the value and what is accepted. ``host`` is the vllm_host fact
    (its GPUs); ``router_port`` the port of a vllm-router on this host (None: none)."""
    if instances in (None, ""):
        return []
    if not isinstance(instances, list):
        return ["%s is %s; accepted: a list of mappings with name, port and optionally model, gpus, "
                "options, served_name, env" % (VAR, _fmt(instances))]
    errors = []
    gpus = _host_gpus(host)
    names, ports = {}, {}
    for i, item in enumerate(instances):
        where = "%s[%d]" % (VAR, i)
        if not isinstance(item, dict):
            errors.append("%s is %s; accepted: a mapping with name, port and optionally model, gpus, "
                          "options, served_name, env" % (where, _fmt(item)))
            continue
        unknown = sorted(str(k) for k in item if k not in KEYS)
        if unknown:
            errors.append("%s has the unknown keys %s; accepted: %s" % (where, ", ".join(unknown),
                                                                      ", ".join(KEYS)))
        name = item.get("name")
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            errors.append("%s.name is %s; accepted: %s" % (where, _fmt(name), NAME_ACCEPTED))
        elif name in names:
            errors.append("%s.name is %r, as %s[%d].name; accepted: a name no other instance has"
                          % (where, name, VAR, names[name]))
        else:
            names[name] = i
        port_errors = check_port("%s.port" % where, item.get("port"))
        errors.extend(port_errors)
        if not port_errors:
            port = int(str(item["port"]))
            if router_port is not None and port == int(router_port):
                errors.append("%s.port is %d, the port of vllm-router on this host "
                              "(vllm_router_port); accepted: a port no other server uses"
                              % (where, port))
            elif port in ports:
                errors.append("%s.port is %d, as %s[%d].port; accepted: a port no other instance "
                              "uses" % (where, port, VAR, ports[port]))
            else:
                ports[port] = i
        model = item.get("model", "")
        if not isinstance(model, str):
            errors.append("%s.model is %s; accepted: builtin, a Hugging Face Hub id (org/name) or an "
                          "absolute path; empty or absent: vllm_model_source" % (where, _fmt(model)))
        errors.extend(check_served_name("%s.served_name" % where, item.get("served_name", "")))
        if "options" in item:
            errors.extend(check_options("%s.options" % where, item["options"]))
        env = item.get("env", {})
        if not isinstance(env, dict):
            errors.append("%s.env is %s; accepted: a mapping of environment variables"
                          % (where, _fmt(env)))
        errors.extend(_gpu_errors(where, item.get("gpus", []), gpus))
    return errors


def _gpu_errors(where, value, gpus):
    if not isinstance(value, list):
        return ["%s.gpus is %s; accepted: %s" % (where, _fmt(value), _gpus_accepted(gpus))]
    errors = []
    seen = set()
    for j, entry in enumerate(value):
        index = _gpu_index(entry, gpus)
        if index is None:
            errors.append("%s.gpus[%d] is %s; accepted: %s" % (where, j, _fmt(entry),
                                                              _gpus_accepted(gpus)))
        elif index in seen:
            errors.append("%s.gpus[%d] is %s, GPU %d again; accepted: each GPU once"
                          % (where, j, _fmt(entry), index))
        seen.add(index)
    return errors


def instance_paths(name, config_dir, log_dir, run_dir="/run/vllm"):
    """The files of instance ``name``: options, environment, launcher config, pidfile, log."""
    base = "%s/%s/%s" % (config_dir.rstrip("/"), INSTANCE_DIR, name)
    return {"options_file": base + ".yaml", "env_file": base + ".env",
            "launcher_config": base + ".launcher.json", "unit": "vllm@%s.service" % name,
            "pidfile": "%s/%s.pid" % (run_dir.rstrip("/"), name),
            "log_file": "%s/%s.log" % (log_dir.rstrip("/"), name)}


def assign_gpus(instances, host):
    """{name: [GPU indexes]}: the GPUs given (by index or UUID), else one GPU each, spread over
    the host's GPUs (the one fewest instances use, the lowest index first). No GPUs: empty lists."""
    gpus = _host_gpus(host)
    load = dict((int(g["index"]), 0) for g in gpus)
    assigned = {}
    for item in instances:
        given = [_gpu_index(v, gpus) for v in item.get("gpus") or []]
        assigned[item["name"]] = [i for i in given if i is not None]
        for index in assigned[item["name"]]:
            load[index] += 1
    for item in instances:
        if assigned[item["name"]] or not load:
            continue
        index = min(sorted(load), key=lambda k: load[k])
        assigned[item["name"]] = [index]
        load[index] += 1
    return assigned


def _user_util(item):
    options = item.get("options") or {}
    for key in ("gpu_memory_utilization", "gpu-memory-utilization"):
        if key in options:
            return float(options[key])
    return None


# vLLM's CPU worker binds its OpenMP threads by this variable: "auto" (every server on the host
# takes the same cores: the first NUMA node's, less one kept for the front end), "nobind", or
# explicit core lists, one per local rank, separated by "|" (vllm/utils/ompmultiprocessing.py).
CPU_BIND_VAR = "VLLM_CPU_OMP_THREADS_BIND"


def _host_cpu_ids(host):
    """The host's usable CPU ids (its affinity set: ``cpu_ids``), else 0..cpus-1."""
    ids = (host or {}).get("cpu_ids")
    if ids:
        return sorted(set(int(i) for i in ids))
    return list(range(max(1, int((host or {}).get("cpus") or 1))))


def _local_world(item):
    """The ranks one instance runs on this host: tensor_parallel_size x pipeline_parallel_size."""
    options = dict((option_key(k), v) for k, v in (item.get("options") or {}).items())
    world = 1
    for key in ("tensor_parallel_size", "pipeline_parallel_size"):
        world *= max(1, int(str(options.get(key) or 1)))
    return world


def cpu_id_list(ids):
    """[0, 1, 2, 5] -> "0-2,5" (the syntax vLLM parses)."""
    parts = []
    for i in sorted(ids):
        if parts and parts[-1][1] == i - 1:
            parts[-1][1] = i
        else:
            parts.append([i, i])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in parts)


def cpu_binds(instances, host, service_env=None):
    """{name: (value, reason)}: the VLLM_CPU_OMP_THREADS_BIND of each instance on the CPU backend.

    One server is left to vLLM ("auto"): an empty dict. Several would all bind to the same cores
    under "auto", and a serving worker busy-polls its queue, so they starve each other: each gets
    its own block of the host's cores instead, in the list's order, split evenly (the first ones
    take the remainder), and its block is split again among its ranks. When the cores do not go
    round (fewer than the ranks of all the instances) every instance runs unbound with one
    OpenMP thread, and the OS shares the cores out. A bind the user gives (in the instance's env
    or in vllm_service_env) is kept, and its cores are not given to the others."""
    if len(instances) < 2:
        return {}
    given_all = CPU_BIND_VAR in (service_env or {})
    ids = _host_cpu_ids(host)
    planned = [i for i in instances if not given_all and CPU_BIND_VAR not in (i.get("env") or {})]
    if not planned:
        return {}
    taken = set()
    for item in instances:
        value = str((item.get("env") or {}).get(CPU_BIND_VAR) or "")
        for part in re.split(r"[|,]", value):
            bounds = part.split("-")
            if all(b.strip().isdigit() for b in bounds) and 1 <= len(bounds) <= 2:
                taken.update(range(int(bounds[0]), int(bounds[-1]) + 1))
    free = [i for i in ids if i not in taken]
    worlds = [_local_world(item) for item in planned]
    if len(free) < sum(worlds):
        reason = ("%d instances with %d ranks in all on %d free cores: unbound, one OpenMP thread "
                  "each (bound, vLLM would put them all on the same cores)"
                  % (len(planned), sum(worlds), len(free)))
        return dict((item["name"], ("nobind", reason)) for item in planned)
    binds = {}
    start = 0
    for n, item in enumerate(planned):
        count = len(free) // len(planned) + (1 if n < len(free) % len(planned) else 0)
        block = free[start:start + count]
        start += count
        world = worlds[n]
        ranks = [block[r * len(block) // world:(r + 1) * len(block) // world] for r in range(world)]
        value = "|".join(cpu_id_list(r) for r in ranks)
        binds[item["name"]] = (value, "cores %s of %s, its own (%d instances on the CPU backend; "
                                      "under \"auto\" all would bind to the same cores)"
                               % (value, cpu_id_list(ids), len(instances)))
    return binds


def plan_instances(instances, host, backend, config_dir, log_dir, default_model="builtin",
                   service_env=None):
    """The plan of every instance, in the list's order: name, port, model, served_name, gpus
    (indexes), sharing (the other instances on its GPUs), env (CUDA_VISIBLE_DEVICES and
    CUDA_DEVICE_ORDER=PCI_BUS_ID on a GPU host; on the CPU backend each instance's own cores
    (:func:`cpu_binds`, ``service_env`` being vllm_service_env); then the instance's own), options
    (the instance's, with its gpu_memory_utilization share), share_reason, cpu_bind (value and
    reason, or None), and its files (:func:`instance_paths`).

    Raises OptionsError when the shares given cannot fit (their sum on a GPU over what one server
    would take there), naming the instances and the figures."""
    gpus = dict((int(g["index"]), g) for g in _host_gpus(host))
    wsl = bool(((host or {}).get("wsl") or {}).get("is_wsl"))
    assigned = assign_gpus(instances, host) if backend == "cuda" else dict(
        (item["name"], []) for item in instances)
    users = {}
    for item in instances:
        for index in assigned[item["name"]]:
            users.setdefault(index, []).append(item["name"])
    _check_given_shares(instances, assigned, users, gpus, wsl)
    binds = cpu_binds(instances, host, service_env) if backend == "cpu" else {}
    plans = []
    for item in instances:
        name = item["name"]
        used = assigned[name]
        sharing = sorted(set(n for i in used for n in users[i] if n != name))
        options = dict(item.get("options") or {})
        reason = None
        if used and _user_util(item) is None:
            share, reason = _auto_share(name, used, users, instances, gpus, wsl)
            options["gpu_memory_utilization"] = share
        env = {}
        if backend == "cuda" and used:
            env = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                   "CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in used)}
        bind = binds.get(name)
        if bind:
            env[CPU_BIND_VAR] = bind[0]
            if bind[0] == "nobind":
                env["OMP_NUM_THREADS"] = "1"
        env.update(dict((k, "" if v is None else str(v)) for k, v in (item.get("env") or {}).items()))
        plan = {"name": name, "port": int(str(item["port"])),
                "model": item.get("model") or default_model,
                "served_name": item.get("served_name") or "", "gpus": used, "sharing": sharing,
                "env": env, "options": options, "share_reason": reason,
                "cpu_bind": ({"value": bind[0], "reason": bind[1]} if bind else None),
                "instance_count": len(instances)}
        plan.update(instance_paths(name, config_dir, log_dir))
        plans.append(plan)
    return plans


# The least share of a GPU an instance is planned with: below it vLLM has no room for a KV cache.
MIN_SHARE = 0.05


def _given_on(index, users, instances):
    """[(name, share)] of the instances on GPU ``index`` whose options give a share."""
    by_name = dict((i["name"], i) for i in instances)
    return [(n, _user_util(by_name[n])) for n in users[index] if _user_util(by_name[n]) is not None]


def _auto_share(name, used, users, instances, gpus, wsl):
    """(share, reason) of an instance that gives no gpu_memory_utilization: on each of its GPUs,
    what one server would take there less the shares other instances give, split evenly among
    the instances that give none; the least over its GPUs."""
    best = None
    for index in used:
        single, why = _utilization([gpus[index]], wsl)
        given = _given_on(index, users, instances)
        rest = [n for n in users[index] if n not in dict(given)]
        left = single - sum(u for _, u in given)
        share = int(left / len(rest) * 100 + 1e-9) / 100.0
        parts = []
        if given:
            parts.append("%s given to %s" % (" + ".join("%.2f" % u for _, u in given),
                                             ", ".join(n for n, _ in given)))
        if len(rest) > 1:
            parts.append("shared by %d instances (%s), %.2f each" % (len(rest), ", ".join(sorted(rest)), share))
        reason = "%.2f: %s%s" % (share, why, "".join("; " + p for p in parts))
        if best is None or share < best[0]:
            best = (share, reason)
    return best


def _check_given_shares(instances, assigned, users, gpus, wsl):
    """Refuse a GPU whose given shares sum over what one server would take there, or leave the
    instances that give none less than MIN_SHARE each."""
    for index, names in sorted(users.items()):
        given = _given_on(index, users, instances)
        if len(names) < 2 or not given:
            continue
        single, why = _utilization([gpus[index]], wsl)
        total = sum(u for _, u in given)
        rest = [n for n in names if n not in dict(given)]
        if total > single + 1e-9:
            raise OptionsError(
                "%s share GPU %d with gpu_memory_utilization %s, %.2f in all; one server may take "
                "%.2f there (%s)" % (" and ".join(n for n, _ in given), index,
                                     " + ".join("%.2f" % u for _, u in given), total, single, why),
                "lower their options' gpu_memory_utilization to sum to at most %.2f, or give them "
                "GPUs of their own (vllm_instances[].gpus)" % single)
        if rest and (single - total) / len(rest) < MIN_SHARE - 1e-9:
            raise OptionsError(
                "%s share GPU %d: %s %s gpu_memory_utilization %s (%.2f in all) of the %.2f one "
                "server may take there (%s), leaving %.2f for %s, less than %.2f each"
                % (", ".join(names), index, " and ".join(n for n, _ in given),
                   "give" if len(given) > 1 else "gives", " + ".join("%.2f" % u for _, u in given), total, single, why,
                   max(0.0, single - total), " and ".join(rest), MIN_SHARE),
                "lower the given gpu_memory_utilization to at most %.2f in all, or give %s a GPU of "
                "its own (vllm_instances[].gpus)" % (single - MIN_SHARE * len(rest), " and ".join(rest)))


def instance_host(plan, host, backend, weights=None):
    """The vllm_host fact as instance ``plan`` sees it: only its GPUs (in CUDA_VISIBLE_DEVICES
    order); on the CPU backend, its part of the RAM (``weights``: {name: weights bytes} of every
    instance), so that :func:`vllm_sizing.size_cpu` gives it its share of the KV cache space."""
    view = copy.deepcopy(host or {})
    if backend == "cuda":
        by_index = dict((int(g["index"]), g) for g in _host_gpus(host))
        view.setdefault("gpu", {})["gpus"] = [by_index[i] for i in plan["gpus"]]
        return view
    weights = dict(weights or {})
    ram = int(((host or {}).get("memory") or {}).get("total_mib") or 0) * MIB
    count = max(1, len(weights))
    room = ram - sum(int(w or 0) for w in weights.values()) - CPU_RAM_RESERVE
    if room < CPU_KV_CACHE_FLOOR * count:
        raise OptionsError(
            "the instances %s do not fit the RAM together: %d MiB of RAM, %d MiB of weights in all "
            "and %d MiB kept for the system leave %d MiB, less than %d MiB of KV cache for each of "
            "the %d" % (", ".join(sorted(weights)), ram // MIB,
                        sum(int(w or 0) for w in weights.values()) // MIB, CPU_RAM_RESERVE // MIB,
                        room // MIB, CPU_KV_CACHE_FLOOR // MIB, count),
            "serve fewer or smaller models on this host, or add RAM")
    own = int(weights.get(plan["name"], 0) or 0)
    # size_cpu(own RAM, own weights) then leaves room / count: this instance's part
    view.setdefault("memory", {})["total_mib"] = (own + CPU_RAM_RESERVE + room // count) // MIB
    return view


def instance_options(plan, model_config, backend, host, bind_host, weights, tls=None):
    """(options, reasons) of one instance: vllm_options.compute_options on the instance's view of
    the host (:func:`instance_host`) with its share. A refusal names the instance, the instances
    it shares its GPUs with and the figures (OptionsError)."""
    try:
        view = instance_host(plan, host, backend, weights)
        options, reasons = compute_options(
            backend, view, model_facts(model_config), plan["served_name"], bind_host, plan["port"],
            plan["options"], int((weights or {}).get(plan["name"], 0) or 0), tls)
    except OptionsError as err:
        shared = (" sharing GPU %s with %s" % (",".join(str(i) for i in plan["gpus"]),
                                               ", ".join(plan["sharing"]))
                  if plan["sharing"] else "")
        raise OptionsError("instance %s (vllm_instances, port %d)%s: %s"
                           % (plan["name"], plan["port"], shared, err.reason), err.way_out)
    if plan.get("share_reason"):
        reasons["gpu_memory_utilization"] = plan["share_reason"]
    reasons["port"] = "vllm_instances: instance %s" % plan["name"]
    return options, reasons


def instances_to_remove(option_files, plans):
    """The names of the instances that have an options file (``option_files``: the paths found in
    the instances' directory) but are no longer in ``plans``, sorted."""
    planned = set(p["name"] for p in plans or [])
    found = set()
    for path in option_files or []:
        base = str(path).rsplit("/", 1)[-1]
        if base.endswith(".yaml") and NAME_RE.fullmatch(base[:-len(".yaml")]):
            found.add(base[:-len(".yaml")])
    return sorted(found - planned)


def gate_row(result):
    """One instance's line of the rollout from its readiness gate's loop result (vllm_ready with
    the instance's plan as ``item``): name, port, unit, ready, stage, elapsed_s, diagnosis (the
    doctor's category) and, when not ready, a message that names the instance."""
    item = result.get("item") or {}
    ready = bool(result.get("ready"))
    diagnosis = result.get("diagnosis") or {}
    row = {"name": item.get("name"), "port": item.get("port"), "unit": item.get("unit"),
           "ready": ready, "stage": result.get("stage"), "elapsed_s": result.get("elapsed_s"),
           "diagnosis": diagnosis.get("category") if isinstance(diagnosis, dict) else None,
           "message": None}
    if not ready:
        row["message"] = "instance %s (port %s): %s" % (
            item.get("name"), item.get("port"),
            result.get("msg") or "vLLM is not ready at stage '%s'" % result.get("stage"))
    return row


def summary_line(plan, service_result, computed):
    """The summary's line of one instance: name, URL, served model, unit, GPUs with the memory
    share, and whether its gate passed."""
    name = plan["name"]
    urls = (service_result or {}).get("instance_urls") or {}
    rows = dict((r.get("name"), r) for r in (service_result or {}).get("instances_ready") or [])
    options = ((computed or {}).get(name) or {}).get("options") or {}
    row = rows.get(name)
    state = "not gated (check mode)" if row is None else ("READY" if row.get("ready") else
                                                          "NOT READY (%s)" % row.get("stage"))
    where = ("GPU %s, gpu-memory-utilization %s" % (",".join(str(i) for i in plan["gpus"]),
                                                   options.get("gpu_memory_utilization"))
             if plan.get("gpus") else "CPU%s, kv-cache-memory-bytes %s" % (
                 " cores %s" % plan["cpu_bind"]["value"]
                 if (plan.get("cpu_bind") or {}).get("value", "nobind") != "nobind" else "",
                 options.get("kv_cache_memory_bytes")))
    return "Instance %s: %s at %s (model %s, %s, %s)" % (
        name, state, urls.get(name, "port %s" % plan["port"]),
        ((computed or {}).get(name) or {}).get("served_name"), plan.get("unit"), where)


def _yaml_lines(text):
    return [line for line in (text or "").split("\n") if line.strip() and not line.startswith("#")]


# what a change of the instances' cores alone rewrites in an environment file (:func:`cpu_binds`)
CPU_BIND_KEYS = (CPU_BIND_VAR, "OMP_NUM_THREADS")


def _slurped(results):
    """{name: text} of slurp loop results (missing and empty files left out)."""
    texts = {}
    for r in results or []:
        if r.get("content"):
            texts[(r.get("item") or {}).get("name")] = base64.b64decode(r["content"]).decode(
                "utf-8", "surrogateescape")
    return texts


def _bind_only_change(old_text, new_text):
    """True when two environment files differ, and only in the CPU cores' variables."""
    if old_text is None or new_text is None:
        return False
    old, new = parse_env_file(old_text), parse_env_file(new_text)
    changed = set(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return bool(changed) and changed <= set(CPU_BIND_KEYS)


def restart_needed(plans, computed, options_before, env_written, env_before=None, env_after=None):
    """The instances whose server must restart: what vLLM reads of its options file changed (the
    ``--config`` YAML, not the comments with the reasons: a neighbour's removal may reword them
    without changing a value) or its environment file changed. ``options_before``: the loop
    results of slurping each options file before the render; ``env_written``: the env files'
    template loop results; ``env_before``/``env_after``: the env files slurped before and after
    the render. An environment that changed only in the cores of :func:`cpu_binds` (an instance
    added or removed beside it) restarts nothing: a running server keeps its cores until its next
    restart, so adding or removing a neighbour does not interrupt the others."""
    old_options = _slurped(options_before)
    env_changed = set((r.get("item") or {}).get("name") for r in env_written or [] if r.get("changed"))
    old_env, new_env = _slurped(env_before), _slurped(env_after)
    env_changed = set(n for n in env_changed if not _bind_only_change(old_env.get(n), new_env.get(n)))
    names = []
    for plan in plans or []:
        name = plan["name"]
        entry = computed[name]
        merged = {"model": entry["model_path"]}
        merged.update(entry["options"])
        old = old_options.get(name)
        if name in env_changed or old is None or _yaml_lines(old) != _yaml_lines(to_cli_yaml(merged)):
            names.append(name)
    return names
