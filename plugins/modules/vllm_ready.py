#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness gate for a vLLM server."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_ready
short_description: Wait until a vLLM server answers, or fail with the reason and its log
description:
  - Waits through connection refused while the model loads, then requires C(GET /health) 200,
    the served name in C(GET /v1/models) and one tiny completion that returns tokens.
  - Watches the server process meanwhile (systemd unit or launcher pidfile) so a start that
    failed ends the wait at once. On failure returns the last log lines and fails.
  - Read-only; runs in check mode too.
options:
  host: {description: Address the server binds., type: str, default: 127.0.0.1}
  port: {description: Port., type: int, default: 8000}
  served_name: {description: Name that must appear in /v1/models., type: str, required: true}
  timeout: {description: Seconds to wait for readiness., type: int, default: 600}
  interval: {description: Seconds between probes., type: float, default: 2.0}
  completion: {description: Also require one completion with tokens., type: bool, default: true}
  api_key: {description: Bearer token when the server requires one., type: str}
  tls_ca:
    description:
      - Speak https and verify the server's certificate against this - PEM text or the path of
        a PEM file on the host (the served certificate itself when self-signed, or a CA bundle).
      - Empty or omitted - plain http.
    type: str
  tls_server_name:
    description: The name the certificate must carry; default the address connected to.
    type: str
  manager:
    description: How the server is run, to watch its process and read its log.
    type: str
    choices: [systemd, launcher, none]
    default: none
  unit: {description: systemd unit name., type: str, default: vllm.service}
  pidfile: {description: Launcher pidfile., type: path, default: /run/vllm/vllm.pid}
  log_file: {description: Launcher log file., type: path, default: /var/log/vllm/vllm.log}
  log_lines: {description: How many log lines to return on failure., type: int, default: 60}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Wait for the server
  vllm_ready:
    port: 8000
    served_name: tiny-llama
    manager: systemd
"""

RETURN = r"""
ready: {description: Whether every step passed., returned: always, type: bool}
stage: {description: "The step reached (connect, process, tls, health, models, completion, ready).", returned: always, type: str}
detail: {description: What happened at that step., returned: always, type: str}
elapsed_s: {description: Seconds waited., returned: always, type: float}
steps: {description: Passed steps with their times., returned: always, type: list}
log_tail: {description: Last log lines of the last start attempt when not ready., returned: on failure, type: list}
diagnosis: {description: "The doctor's category, evidence, fix and confidence.", returned: on failure, type: dict}
"""

import errno
import os
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_doctor import diagnose
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_doctor_live import gather
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_launcher import last_attempt
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_readiness import wait_ready

DIAGNOSE_LINES = 3000


def systemd_alive(module, unit):
    def alive():
        rc, out, _ = module.run_command(
            ["systemctl", "show", unit, "-p", "ActiveState", "-p", "SubState", "-p", "MainPID",
             "-p", "Result", "-p", "NRestarts"])
        props = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        state, sub = props.get("ActiveState"), props.get("SubState")
        if rc != 0:
            return False, "systemctl show %s failed" % unit
        if state in ("failed", "inactive") or (state == "activating" and sub == "auto-restart"):
            return False, "%s is %s (%s), result %s, restarts %s" % (
                unit, state, sub, props.get("Result"), props.get("NRestarts"))
        return True, ""
    return alive


def launcher_alive(pidfile):
    def alive():
        try:
            with open(pidfile) as handle:
                pid = int(handle.read().split()[0])
        except (IOError, OSError, ValueError, IndexError):
            return False, "no pidfile %s" % pidfile
        try:
            with open("/proc/%d/stat" % pid) as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except (IOError, OSError, IndexError):
            return False, "pid %d from %s has exited" % (pid, pidfile)
        if state in ("Z", "X"):
            return False, "pid %d from %s has exited (zombie)" % (pid, pidfile)
        return True, ""
    return alive


def read_log(module, manager, unit, log_file, lines):
    """The server's log of its last start attempt (systemd: this invocation's journal)."""
    if manager == "systemd":
        rc, inv, _ = module.run_command(["systemctl", "show", unit, "-p", "InvocationID", "--value"])
        cmd = ["journalctl", "--no-pager", "-o", "cat", "-n", str(lines)]
        cmd += ["_SYSTEMD_INVOCATION_ID=%s" % inv.strip()] if rc == 0 and inv.strip() else ["-u", unit]
        rc, out, err = module.run_command(cmd)
        return out or err
    if manager == "launcher" and os.path.lexists(log_file):
        try:
            fd = open_log_for_reading(log_file)
        except (IOError, OSError, ValueError) as err:
            return "(the log was not read: %s)" % err
        with os.fdopen(fd, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 4 * 1024 * 1024))
            text = handle.read().decode("utf-8", "replace")
        return last_attempt(text)
    return ""


def open_log_for_reading(path):
    """The launcher's log, opened by root in a folder the service user owns: never through a
    symbolic link, a FIFO or a hard link (its tail goes into the task's result), so the service
    user cannot make this module print a root-only file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ValueError("%s is a symbolic link" % path)
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise ValueError("%s is not a regular file with one link" % path)
    return fd


def doctor(text, port):
    """The doctor's diagnosis of a failed start, with what the live host adds."""
    try:
        live = gather(port=port)
    except Exception:  # pylint: disable=broad-except  # facts only sharpen the diagnosis
        live = None
    result = diagnose(text, live)
    return dict((k, result.get(k)) for k in ("category", "evidence", "fix", "confidence"))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str", default="127.0.0.1"),
            port=dict(type="int", default=8000),
            served_name=dict(type="str", required=True),
            timeout=dict(type="int", default=600),
            interval=dict(type="float", default=2.0),
            completion=dict(type="bool", default=True),
            api_key=dict(type="str", no_log=True),
            tls_ca=dict(type="str"),
            tls_server_name=dict(type="str"),
            manager=dict(type="str", default="none", choices=["systemd", "launcher", "none"]),
            unit=dict(type="str", default="vllm.service"),
            pidfile=dict(type="path", default="/run/vllm/vllm.pid"),
            log_file=dict(type="path", default="/var/log/vllm/vllm.log"),
            log_lines=dict(type="int", default=60),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if p["timeout"] < 1 or not p["interval"] > 0:
        module.fail_json(msg="vllm_ready: timeout is %r and interval %r; accepted: a timeout of "
                         "1 s or more and an interval above 0 (waits never pass the timeout)"
                         % (p["timeout"], p["interval"]), ready=False, stage="arguments")
    alive = None
    if p["manager"] == "systemd":
        alive = systemd_alive(module, p["unit"])
    elif p["manager"] == "launcher":
        alive = launcher_alive(p["pidfile"])
    result = wait_ready(p["host"], p["port"], p["served_name"], timeout=p["timeout"],
                        interval=p["interval"], api_key=p["api_key"],
                        completion=p["completion"], alive=alive, tls_ca=p["tls_ca"] or None,
                        tls_server_name=p["tls_server_name"] or None).as_dict()
    if result["ready"]:
        module.exit_json(changed=False, **result)
    text = read_log(module, p["manager"], p["unit"], p["log_file"], DIAGNOSE_LINES)
    result["log_tail"] = text.splitlines()[-p["log_lines"]:]
    result["diagnosis"] = doctor(text, p["port"])
    msg = "vLLM is not ready at stage '%s': %s" % (result["stage"], result["detail"])
    diag = result["diagnosis"]
    if diag.get("category") not in (None, "unknown"):
        msg += ". Cause: %s (confidence %.2f): %s. Fix: %s" % (
            diag["category"], diag.get("confidence") or 0, diag.get("evidence"), diag.get("fix"))
    module.fail_json(msg=msg, changed=False, **result)


if __name__ == "__main__":
    main()
