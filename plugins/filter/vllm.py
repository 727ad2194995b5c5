# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that expose the provisioner's decisions to tasks (the logic lives in module_utils)."""
from __future__ import absolute_import, division, print_function

import hashlib
import os
import sys

__metaclass__ = type

DOCUMENTATION = r"""
name: vllm
short_description: vLLM provisioner decisions (input checks, plan, server options, rendering)
description:
  - C(vllm_input_errors) returns the list of input errors (variable, value, what is accepted),
    with the errors of the roles' argument specs' check (types and choices) first;
    C(vllm_spec_options) merges the roles' parsed C(meta/argument_specs.yml) into the one spec
    that check takes (and whose option names are the inputs the preflight reads).
  - C(vllm_plan) picks Python, backend, torch and vLLM for a host from the compatibility table; a
    release named by C(vllm_python_release) fixes them.
  - C(vllm_model_facts), C(vllm_service_options), C(vllm_service_env) compute the server's options.
  - C(vllm_cli_yaml) and C(vllm_env_file) render them for vLLM's --config and EnvironmentFile=;
    C(vllm_options_file) renders the whole options file (reasons as escaped comments, then the YAML).
    All three refuse what their readers would not read back exactly.
  - C(vllm_lock_drift) compares a venv's C(uv pip freeze) with the release's lock file.
  - C(vllm_venv_problems) lists what a venv's check report shows wrong against the plan.
  - C(vllm_rollback_plan) decides what a rollback restores, resets and removes (files this run
    created), from a stat of the managed files taken before rendering; C(vllm_existing_files)
    lists the paths that stat found.
  - C(vllm_help_facts) parses the installed vLLM's C(--help=all) (version and options).
  - C(vllm_check_options) lists the options that vLLM would reject, with what to use instead.
  - C(vllm_planned_option_check) checks vllm_service_options against the planned release's kept
    C(--help=all) (data/vllm_options/) before anything is installed (names, and whether each
    option takes a value); value choices are left to C(vllm_check_options) after the install.
  - C(vllm_exec_line) quotes an argv for systemd's ExecStart= (each element read back exactly);
    C(vllm_unit_sandbox) decides the unit's writable paths, ProtectHome= and device access.
  - C(vllm_service_url) is the URL clients use (https with a certificate);
    C(vllm_service_warnings) lists what the summary warns about (an API key sent in clear).
  - C(vllm_wheelhouse_jobs) groups hosts by lock file and wheel target (one C(pip download) each);
    C(vllm_pip_source_args) turns the install's package sources into pip options;
    C(vllm_wheelhouse_missing) lists the job's wheels a host's folder lacks.
  - C(vllm_serving) says what serves before a run (release, URL, health URL) from a stat of the
    C(current) link and the options file.
  - C(vllm_service_manager_choice) picks systemd or the launcher; C(vllm_tls_files) and
    C(vllm_trusted_ca) are the server's TLS paths and what its gate trusts;
    C(vllm_absent_paths) what vllm_state absent removes and keeps; C(vllm_options_before) the
    options file before this run, from its slurp.
  - C(vllm_install_indexes), C(vllm_uv_source_args), C(vllm_uv_compile_argv), C(vllm_uv_sync_argv)
    are the install's package sources and uv commands; C(vllm_wheelhouse_place),
    C(vllm_lock_sha256) and C(vllm_wheelhouse_source) where the wheelhouse is built and read.
  - C(vllm_model_kind), C(vllm_model_path), C(vllm_model_default_name) what the model source is;
    C(vllm_model_source_state) what the check of a model folder found; C(vllm_python_provider)
    where a missing Python comes from, C(vllm_python_interpreter) which interpreter makes the venv,
    C(vllm_server_argv) the server's command line.
  - Messages and results the roles show come from C(vllm_plan_lines), C(vllm_venv_ok_line),
    C(vllm_model_preflight_lines), C(vllm_rollout_failed), C(vllm_rollout_message),
    C(vllm_backups_to_remove) (after a passed gate), and the summary's C(vllm_summary_changes),
    C(vllm_summary_next_steps), C(vllm_summary_state), C(vllm_cuda_note), C(vllm_summary_tail),
    C(vllm_model_revision_note); C(vllm_wsl_windows_ram) the Windows RAM the WSL sizing uses,
    C(vllm_wsl_notices) what the WSL role tells the user.
  - The router and the monitor (vllm_router) - C(vllm_router_backends) the servers as the router
    reaches them (one per instance, C(HOST/NAME), for a host with C(vllm_instances)),
    C(vllm_router_argv) its command line, C(vllm_router_input_errors) and
    C(vllm_monitor_input_errors) their input checks, C(vllm_node_targets) and
    C(vllm_router_targets) what Prometheus scrapes besides the servers, C(vllm_prometheus_config)
    and C(vllm_prometheus_rules) its configuration and alert rules, C(vllm_gate_textfile) the
    readiness gate's result as a node-exporter textfile metric; C(vllm_local_url) the URL a
    service is reached at from its own host (a wildcard bind address on loopback);
    C(vllm_drain_plan) the router admin URLs a rollout removes a server at and adds it back,
    C(vllm_running_requests) the requests a server runs (its /metrics), C(vllm_workers_state)
    each backend's state behind a router, C(vllm_router_lines) the router's summary.
  - The server's guard (vllm_firewall) - C(vllm_nft_guard) the nftables table that admits only
    loopback and vllm_service_firewall_allow to the server's port (or ports), C(vllm_guard_ports)
    the ports it covers (every instance's with vllm_instances, else the one server's).
  - vLLM's Grafana dashboards (vllm_dashboards) - C(vllm_dashboard_urls) where each is fetched,
    C(vllm_dashboard_check) whether a file is a usable dashboard, C(vllm_dashboards_fetched) the
    fetch's results, each checked.
"""

try:  # Ansible: the collection's module_utils (a checkout is the collection too: scripts/bootstrap)
    from ansible_collections.vllm_ops.workstation.plugins.module_utils import (
        vllm_argspec, vllm_common, vllm_day2, vllm_firewall, vllm_flags, vllm_lock, vllm_model_check, vllm_options, vllm_plan,
        vllm_dashboards, vllm_readiness, vllm_report, vllm_router, vllm_unit, vllm_validate, vllm_wheelhouse, vllm_wslconfig)
except ImportError:  # plain Python (scripts, tests): the same files as the package module_utils
    _PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if _PLUGINS not in sys.path:
        sys.path.insert(0, _PLUGINS)
    from module_utils import (  # type: ignore  # noqa: E402  pylint: disable=import-error
        vllm_argspec, vllm_common, vllm_day2, vllm_firewall, vllm_flags, vllm_lock, vllm_model_check, vllm_options, vllm_plan,
        vllm_dashboards, vllm_readiness, vllm_report, vllm_router, vllm_unit, vllm_validate, vllm_wheelhouse, vllm_wslconfig)

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - plain Python (scripts, tests without ansible)
    AnsibleFilterError = ValueError

DEFAULT_ADVICE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data", "vllm_flag_advice.yml")


def vllm_input_errors(values, model_source_exists=None, table=None, spec_messages=None, spec=None):
    """Errors in the user's inputs (empty when all is well). ``table`` adds the planner's pins;
    ``spec_messages`` (validate_argument_spec's argument_errors against ``spec``) the types and
    choices, first."""
    errors = vllm_validate.validate_inputs(dict(values), model_source_exists)
    if spec_messages:
        type_errors = vllm_argspec.spec_errors(spec_messages, spec or {}, values)
        errors = vllm_argspec.merge_errors(type_errors, errors)
    if table is not None:
        pins = {
            "backend": values.get("vllm_install_backend", "auto"),
            "vllm_version": values.get("vllm_install_version") or None,
            "python_version": values.get("vllm_python_version") or None,
            "cuda_variant": values.get("vllm_install_cuda_variant") or None,
        }
        named = vllm_plan.named_release_errors(values, table)
        errors.extend(e for e in named if e not in errors)
        if values.get(vllm_plan.RELEASE_VAR) not in (None, ""):
            # the name fixes the pins; a pin that disagrees is reported above, once
            pins = vllm_plan.named_pins(pins, values.get(vllm_plan.RELEASE_VAR), table) if not named else {}
        errors.extend(e for e in vllm_plan.validate_pins(pins, table) if e not in errors)
    return errors


def vllm_plan_for(host, table, pins, release=None):
    """The install plan for a host, or ``{"error": ..., "way_out": ...}`` when it must refuse.
    ``release``: the release folder named by vllm_python_release (its pins win)."""
    pins = dict((k, (v or None) if k != "backend" else (v or "auto")) for k, v in pins.items())
    try:
        plan = vllm_plan.plan_named(host, table, pins, release or None)
    except vllm_plan.PlanError as err:
        return {"error": str(err), "way_out": getattr(err, "way_out", None)}
    plan["error"] = None
    plan["way_out"] = None
    return plan


def vllm_service_options(model_config, backend, host, served_name, bind_host, port,
                         user_options=None, weights_bytes=0, tls=None):
    """Computed options merged with the user's. A model that cannot fit fails the task with the
    numbers and the ways out (vllm_options.OptionsError). ``tls``: the certificate's and key's
    paths (``{certfile, keyfile}``) when the server speaks https."""
    facts = vllm_options.model_facts(model_config)
    try:
        options, reasons = vllm_options.compute_options(backend, host, facts, served_name,
                                                        bind_host, port, user_options, weights_bytes,
                                                        dict(tls) if tls else None)
    except vllm_options.OptionsError as err:
        raise AnsibleFilterError(str(err))
    return {"options": options, "reasons": reasons, "model": facts}


def vllm_service_env(backend, host, user_env=None, state_dir=None, options=None):
    env, reasons = vllm_options.service_env(backend, host, user_env, state_dir, options)
    return {"env": env, "reasons": reasons}


def vllm_cli_yaml(options):
    """vLLM --config YAML (vllm_options.to_cli_yaml); an unsafe key or value fails the task."""
    try:
        return vllm_options.to_cli_yaml(dict(options))
    except ValueError as err:
        raise AnsibleFilterError("vllm_cli_yaml: %s" % err)


def vllm_options_file(computed, model_path, served_name):
    """The options file below the managed header, from vllm_service_options' result."""
    try:
        return vllm_options.options_file(dict(computed["options"]), dict(computed["reasons"]),
                                         model_path, served_name)
    except ValueError as err:
        raise AnsibleFilterError("vllm_options_file: %s" % err)


def vllm_env_file(env):
    """KEY="value" lines for EnvironmentFile= and the launcher; an unsafe key or value fails."""
    try:
        return vllm_options.to_env_file(dict(env))
    except ValueError as err:
        raise AnsibleFilterError("vllm_env_file: %s" % err)


def vllm_help_facts(help_text):
    """``{"version", "options"}`` from ``vllm serve --help=all`` output (cache it per version)."""
    return vllm_flags.parse_help(help_text or "")


def _advice_table(advice):
    """The advice table from a path, a loaded data/vllm_flag_advice.yml, its ``advice`` mapping,
    or None (this repository's file)."""
    if advice is None or isinstance(advice, str):
        return vllm_flags.load_advice(advice or DEFAULT_ADVICE)
    table = advice.get("advice", advice) if isinstance(advice, dict) else {}
    return dict((vllm_common.option_key(k), v) for k, v in table.items()
                if isinstance(v, dict))


def vllm_check_options(options, help_text, advice=None):
    """Errors for options the installed vLLM would reject (empty list when all are accepted).

    ``options``: underscore or dash names (vllm_service_options, or the rendered --config keys);
    ``help_text``: ``vllm serve --help=all`` output, or :func:`vllm_help_facts` of it;
    ``advice``: see :func:`_advice_table`.
    """
    facts = help_text if isinstance(help_text, dict) else vllm_flags.parse_help(help_text or "")
    return vllm_flags.check_options(dict(options or {}), facts, _advice_table(advice))


def vllm_planned_option_check(options, directory, package, version, advice=None):
    """Check ``options`` against the planned release's kept option list, on the controller.

    Returns ``{"list": path, "kept": bool, "errors": [...]}``; ``kept`` is false (and ``errors``
    empty) when ``directory`` holds no list for ``package`` ``version``: the check after the
    install is then the only one. Errors start with ``vllm_service_options.<option> = <value>:``.
    """
    path = os.path.join(str(directory), vllm_flags.option_list_name(package, version))
    if not os.path.isfile(path):
        return {"list": path, "kept": False, "errors": []}
    with open(path) as handle:
        text = handle.read()
    try:
        errors = vllm_flags.planned_option_check(
            dict(options or {}), text, _advice_table(advice), release="%s %s" % (package, version),
            variable="vllm_service_options")
    except ValueError as err:
        raise AnsibleFilterError("%s: %s" % (path, err))
    return {"list": path, "kept": True, "errors": errors}


def _stats_by_path(files_before):
    """``{path: stat}`` from a registered ``stat`` loop (``results[].item`` / ``.stat``)."""
    results = files_before.get("results", []) if isinstance(files_before, dict) else files_before
    return dict((r["item"], r.get("stat") or {}) for r in (results or [])
                if isinstance(r, dict) and isinstance(r.get("item"), str))


def vllm_existing_files(files_before):
    """The paths a registered ``stat`` loop found existing."""
    return sorted(p for p, st in _stats_by_path(files_before).items() if st.get("exists"))


def vllm_stale_copies(found, src_dir, names, owner="root", group="root", mode="0644"):
    """Which of ``names`` (files in ``src_dir`` on the controller) a copy must (re)write on the host.

    ``found``: a registered ``find`` of the host's directory with ``get_checksum: true``. A name
    is stale when the host has no regular file of that name there, or one whose SHA-1, owner,
    group or mode differ from what the copy would leave: one ``find`` for the lot instead of a
    copy's stat (and, unchanged, its ``file`` call) per file. Order of ``names`` kept.
    """
    on_host = {}
    for entry in (found or {}).get("files", []) if isinstance(found, dict) else found or []:
        if isinstance(entry, dict) and entry.get("path") and entry.get("isreg", True):
            on_host[os.path.basename(str(entry["path"]))] = entry
    stale = []
    for name in names or []:
        path = os.path.join(str(src_dir), str(name))
        try:
            with open(path, "rb") as handle:
                want = hashlib.sha1(handle.read()).hexdigest()
        except (IOError, OSError) as err:
            raise AnsibleFilterError("vllm_stale_copies: cannot read %s: %s" % (path, err))
        have = on_host.get(str(name))
        if (not have or have.get("checksum") != want or have.get("pw_name") != owner
                or have.get("gr_name") != group or str(have.get("mode", "")).lstrip("0") != mode.lstrip("0")):
            stale.append(name)
    return stale


def vllm_rollback_plan(files_before, changes, previous_release="", switched=False):
    """What a rollback does to put every managed file back as it was before this run.

    ``files_before``: the ``stat`` loop registered before anything was rendered (which files
    existed, with their owner, group and mode). ``changes``: one ``{path, result, backup?,
    secret?}`` per task that wrote or removed a managed file, ``result`` as registered (skipped
    or unchanged ones do nothing), ``backup`` a copy kept before a removal. Returns
    ``{roll_back, restore, reset, remove, cleanup, lost}``: files to copy back from their backup
    (with the owner, group and mode they had), files whose content is unchanged but owner, group
    or mode changed, files this run created (removed), every backup to delete afterwards, and
    files this run changed but cannot put back (no backup). ``roll_back``: there is a previous
    release and something to put back (the release symlink or a file).
    """
    before = _stats_by_path(files_before)
    plan = {"restore": [], "reset": [], "remove": [], "cleanup": [], "lost": []}
    for change in changes or []:
        result = change.get("result") or {}
        path = change.get("path")
        backup = result.get("backup_file") or change.get("backup") or ""
        if backup:
            plan["cleanup"].append(backup)
        if not path or result.get("skipped") or not result.get("changed"):
            continue
        stat = before.get(path)
        attrs = {"dest": path, "owner": (stat or {}).get("pw_name") or result.get("owner", "root"),
                 "group": (stat or {}).get("gr_name") or result.get("group", "root"),
                 "mode": (stat or {}).get("mode") or result.get("mode", "0644"),
                 "secret": bool(change.get("secret"))}
        if backup:
            plan["restore"].append(dict(attrs, backup=backup))
        elif stat is not None and not stat.get("exists"):
            plan["remove"].append(path)
        elif stat and result.get("state") != "absent":
            plan["reset"].append(attrs)
        else:
            plan["lost"].append(path)
    plan["roll_back"] = bool(previous_release) and bool(
        switched or plan["restore"] or plan["reset"] or plan["remove"])
    return plan


def vllm_venv_problems(found, plan, gpu=None):
    """vllm_lock.venv_problems, with each GPU's compute capability checked against the
    architectures the installed torch was compiled for (vllm_plan.kernels_for)."""
    return vllm_lock.venv_problems(found, plan, gpu, getattr(vllm_plan, "kernels_for", None))


def vllm_exec_line(argv):
    """ExecStart='s value for ``argv`` (vllm_unit.exec_command_line); what systemd cannot pass
    (a NUL, a relative command) fails the task."""
    try:
        return vllm_unit.exec_command_line(list(argv))
    except ValueError as err:
        raise AnsibleFilterError("vllm_exec_line: %s" % err)


def vllm_unit_sandbox(backend, host, writable, readable=None):
    """The unit's confinement (vllm_unit.sandbox) for ``backend`` on ``host`` (vllm_host facts)."""
    wsl = ((host or {}).get("wsl") or {}).get("is_wsl", False)
    try:
        return vllm_unit.sandbox(backend, bool(wsl), list(writable or []), list(readable or []))
    except ValueError as err:
        raise AnsibleFilterError("vllm_unit_sandbox: %s" % err)


def vllm_wheelhouse_jobs(hosts):
    """One ``pip download`` per lock file and wheel target (vllm_wheelhouse.download_jobs); facts
    that name no usable target fail the task with the host's name."""
    try:
        return vllm_wheelhouse.download_jobs(list(hosts or []))
    except vllm_wheelhouse.WheelhouseError as err:
        raise AnsibleFilterError("vllm_wheelhouse_jobs: %s" % err)


def vllm_service_url(host, port, tls=False):
    """``http(s)://<bind address>:<port>/v1`` (vllm_readiness.service_url)."""
    return vllm_readiness.service_url(host, port, bool(tls))


def vllm_service_warnings(host, api_key, tls=False):
    """Warnings for the summary (vllm_validate.exposure_warnings): never refusals."""
    return vllm_validate.exposure_warnings(host, api_key, bool(tls))


def vllm_router_backends(servers, hostvars, router_host=None):
    """The servers of vllm_servers as the router reaches them (vllm_router.backends; one per
    instance of a host with vllm_instances); a server it cannot reach fails the task with the
    host's name."""
    try:
        return vllm_router.backends(list(servers or []), hostvars or {}, router_host)
    except vllm_router.RouterError as err:
        raise AnsibleFilterError("vllm_router_backends: %s" % err)


class FilterModule(object):
    def filters(self):
        return {
            "vllm_input_errors": vllm_input_errors,
            "vllm_spec_options": vllm_argspec.spec_options,
            "vllm_host_problems": vllm_validate.host_problems,
            "vllm_plan": vllm_plan_for,
            "vllm_python_provider": vllm_plan.python_provider,
            "vllm_python_interpreter": vllm_plan.interpreter_path,
            "vllm_server_argv": vllm_plan.server_argv,
            "vllm_model_facts": vllm_options.model_facts,
            "vllm_service_options": vllm_service_options,
            "vllm_service_env": vllm_service_env,
            "vllm_cli_yaml": vllm_cli_yaml,
            "vllm_options_file": vllm_options_file,
            "vllm_env_file": vllm_env_file,
            "vllm_lock_drift": vllm_lock.drift,
            "vllm_venv_problems": vllm_venv_problems,
            "vllm_venv_notes": vllm_lock.venv_notes,
            "vllm_existing_files": vllm_existing_files,
            "vllm_stale_copies": vllm_stale_copies,
            "vllm_rollback_plan": vllm_rollback_plan,
            "vllm_option_lines": vllm_options.option_lines,
            "vllm_help_facts": vllm_help_facts,
            "vllm_check_options": vllm_check_options,
            "vllm_planned_option_check": vllm_planned_option_check,
            "vllm_exec_line": vllm_exec_line,
            "vllm_service_url": vllm_service_url,
            "vllm_service_warnings": vllm_service_warnings,
            "vllm_local_url": vllm_readiness.base_url,
            "vllm_router_backends": vllm_router_backends,
            "vllm_router_argv": vllm_router.router_argv,
            "vllm_router_input_errors": vllm_router.router_input_errors,
            "vllm_monitor_input_errors": vllm_router.monitor_input_errors,
            "vllm_node_targets": vllm_router.node_targets,
            "vllm_router_targets": vllm_router.router_targets,
            "vllm_prometheus_config": vllm_router.scrape_config,
            "vllm_prometheus_rules": vllm_router.alert_rules,
            "vllm_gate_textfile": vllm_router.gate_textfile,
            "vllm_drain_plan": vllm_router.drain_plan,
            "vllm_running_requests": vllm_router.running_requests,
            "vllm_workers_state": vllm_router.workers_state,
            "vllm_router_lines": vllm_router.router_lines,
            "vllm_nft_guard": vllm_firewall.guard_ruleset,
            "vllm_guard_ports": vllm_firewall.guard_ports,
            "vllm_dashboard_urls": vllm_dashboards.urls,
            "vllm_dashboard_check": vllm_dashboards.check,
            "vllm_dashboards_fetched": vllm_dashboards.fetched,
            "vllm_unit_sandbox": vllm_unit_sandbox,
            "vllm_wheelhouse_jobs": vllm_wheelhouse_jobs,
            "vllm_pip_source_args": vllm_wheelhouse.pip_source_args,
            "vllm_wheelhouse_missing": vllm_wheelhouse.missing,
            "vllm_serving": vllm_report.serving_state,
            "vllm_day2_commands": vllm_day2.next_lines,
            "vllm_service_manager_choice": vllm_unit.service_manager,
            "vllm_tls_files": vllm_readiness.tls_files,
            "vllm_trusted_ca": vllm_readiness.trusted_ca,
            "vllm_absent_paths": vllm_day2.absent_paths,
            "vllm_options_before": vllm_report.options_before,
            "vllm_install_indexes": vllm_wheelhouse.install_indexes,
            "vllm_uv_source_args": vllm_wheelhouse.uv_source_args,
            "vllm_uv_compile_argv": vllm_wheelhouse.uv_compile_argv,
            "vllm_uv_sync_argv": vllm_wheelhouse.uv_sync_argv,
            "vllm_wheelhouse_place": vllm_wheelhouse.wheelhouse_place,
            "vllm_lock_sha256": vllm_wheelhouse.slurped_lock_sha256,
            "vllm_wheelhouse_source": vllm_wheelhouse.wheelhouse_source,
            "vllm_model_kind": vllm_model_check.model_kind,
            "vllm_model_path": vllm_model_check.model_path,
            "vllm_model_default_name": vllm_model_check.model_default_name,
            "vllm_model_source_state": vllm_validate.model_source_state,
            "vllm_plan_lines": vllm_report.plan_lines,
            "vllm_venv_ok_line": vllm_report.venv_ok_line,
            "vllm_model_preflight_lines": vllm_report.model_preflight_lines,
            "vllm_backups_to_remove": vllm_report.backups_to_remove,
            "vllm_rollout_failed": vllm_report.rollout_failed,
            "vllm_rollout_message": vllm_report.rollout_message,
            "vllm_summary_changes": vllm_report.summary_changes,
            "vllm_summary_next_steps": vllm_report.summary_next_steps,
            "vllm_summary_state": vllm_report.summary_state,
            "vllm_cuda_note": vllm_report.cuda_note,
            "vllm_summary_tail": vllm_report.summary_tail,
            "vllm_model_revision_note": vllm_report.model_revision_note,
            "vllm_wsl_windows_ram": vllm_wslconfig.windows_ram,
            "vllm_wsl_notices": vllm_wslconfig.wsl_notices,
        }
