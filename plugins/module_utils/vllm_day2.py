# -*- coding: utf-8 -*-
"""Day-2 commands for a provisioned host: status, log, restart, stop, removal, going back.

Pure standard-library logic: the ``vllm_day2_commands`` filter (plugins/filter/vllm.py) gives the
vllm_summary role the lines it prints under "Next:" for one host, by the service manager that
runs its server. The README's "Day 2" section says the same for both managers.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

MANAGERS = ("systemd", "launcher")
LAUNCHER = "/usr/local/sbin/vllm-launcher"
UNIT = "vllm"
LOG_FILE = "/var/log/vllm/vllm.log"
PYTHON_ROOT = "/opt/vllm"


def service_commands(manager, unit=UNIT, launcher=LAUNCHER, log_file=LOG_FILE):
    """``[(what, command)]``: status, log, restart and stop under ``manager`` (``systemd`` or
    ``launcher``). ``unit``: the unit's name (``vllm`` or ``vllm.service``)."""
    if manager == "systemd":
        name = unit[:-len(".service")] if unit.endswith(".service") else unit
        return [("status", "systemctl status %s" % name), ("log", "journalctl -u %s -f" % name),
                ("restart", "systemctl restart %s" % name), ("stop", "systemctl stop %s" % name)]
    if manager == "launcher":
        return [("status", "%s status" % launcher), ("log", "tail -f %s" % log_file),
                ("restart", "%s restart" % launcher), ("stop", "%s stop" % launcher)]
    raise ValueError("unknown service manager %r (expected one of %s)" % (manager, ", ".join(MANAGERS)))


def next_lines(manager, removed=False, unit=UNIT, launcher=LAUNCHER, log_file=LOG_FILE, python_root=PYTHON_ROOT,
               host=None, store_kept=True):
    """The summary's "Next:" lines for one host.

    A served host: its manager's status, log, restart and stop commands, how to remove the
    server (``-e vllm_state=absent``), how to go back to an earlier release (``-e vllm_python_release=NAME``,
    through the same gate) and how an
    upgrade goes. A ``removed`` host: how to bring it back (``store_kept``: the model store was
    kept, so no download).
    """
    limit = (" -l %s" % host) if host else ""
    if removed:
        return ["bring it back: ansible-playbook site.yml%s (%s)" % (
            limit, "the model store was kept: no download" if store_kept else "the model is fetched again")]
    lines = ["%s: %s" % (what, command) for what, command in service_commands(manager, unit, launcher, log_file)]
    lines += [
        "remove the server (model store kept): ansible-playbook site.yml%s -e vllm_state=absent" % limit,
        "back to an earlier release (through the readiness gate): ls %s/releases; ansible-playbook site.yml%s "
        "-e vllm_python_release=NAME (keep it set to stay there; empty: the planned release again)"
        % (python_root, limit),
        "upgrade vLLM: change vllm_install_version and run site.yml; the new release is built beside the "
        "running one and replaces it only after its readiness gate",
    ]
    return lines


def absent_paths(managed, store, remove_store):
    """vllm_state absent: ``{"remove": paths, "kept": paths}``. The managed paths go (in their
    order); the model store goes after them only when ``remove_store``, else it is kept."""
    managed = list(managed or [])
    if remove_store:
        return {"remove": managed + [store], "kept": []}
    return {"remove": managed, "kept": [store]}
