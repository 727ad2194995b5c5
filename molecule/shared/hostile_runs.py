#!/usr/bin/env python3
"""Ten generated bad inputs in real runs of site.yml against a served container.

The default scenario's side effect (molecule/shared/hostile_runs.yml). The inputs come from
tests/vllm_fuzz.py with its fixed seed: one bad input of each category of
vllm_fuzz.REAL_CATEGORIES (reserved option, argv injection through a value, hostile option
name, value out of vLLM's range, hostile environment name and value, host, served name, API key),
then one run of awkward but legal inputs. The refused runs go PARALLEL at a time (each fails in
the preflight, before anything on the host changes); the served one runs last, alone:

* refused: each run failed in the preflight naming the input ("nothing was changed") and a secret
  never shows in its output; after the last, every file the service reads is byte for byte what it
  was before the first, the server is the same process, no secret is in a rendered file, and it
  answers /health and a completion on 127.0.0.1 only;
* served: the run passed; the options file read by the server venv's own PyYAML, and the
  server's environment as systemd gave it (/proc/PID/environ), hold exactly what was given;
  the server listens on 127.0.0.1 only, wants the new (awkward) API key, answers a completion
  with it, and the key shows in no rendered file but the root-only secrets file, nor in ps.

The next side effect puts the converge's configuration back: molecule/shared/absent_present.yml
removes the server with vllm_state absent, brings it back with the scenario's settings and
records the new server's pid in /root/first-converge-server-pid, which the verifier's "second
converge restarted nothing" check reads; this script checks that pid first (before any run).

Every run is bounded (RUN_TIMEOUT), every request too (REQUEST_TIMEOUT). Usage:
    hostile_runs.py --inventory INVENTORY --container NAME
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from vllm_fuzz import SEED, real_run_cases, served_inputs  # noqa: E402

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or "ansible-playbook"
RUN_TIMEOUT = 900  # one site.yml run: the served one restarts and gates a CPU server
REQUEST_TIMEOUT = 120
PARALLEL = 3  # refused runs at a time: each is mostly the controller's Ansible start-up
PORT = 8000
NAME = "tiny-llama"
SERVER = "^/opt/vllm/current/venv/bin/python -m vllm.entrypoints.openai.api_server"
WATCHED = ["/etc/vllm", "/etc/systemd/system/vllm.service", "/opt/vllm/current",
           "/usr/local/sbin/vllm-launcher"]
RENDERED = ["/etc/vllm/vllm.yaml", "/etc/vllm/vllm.env", "/etc/systemd/system/vllm.service",
            "/var/log/vllm/vllm.log"]

# run inside the container: sha256 of every file under WATCHED (links by their target)
SNAPSHOT = r"""
import hashlib, json, os, sys
out = {}
for top in json.loads(sys.argv[1]):
    paths = [top]
    if os.path.isdir(top) and not os.path.islink(top):
        paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs)
    for p in paths:
        if os.path.islink(p):
            out[p] = "-> " + os.readlink(p)
        elif os.path.isfile(p):
            st = os.stat(p)
            out[p] = "%o %d:%d %s" % (st.st_mode, st.st_uid, st.st_gid,
                                      hashlib.sha256(open(p, "rb").read()).hexdigest())
print(json.dumps(out, sort_keys=True))
"""

# run inside the container: one HTTP request, the key from stdin (never in ps)
REQUEST = r"""
import json, sys, urllib.request, urllib.error
req = json.load(sys.stdin)
headers = {"Content-Type": "application/json"}
if req["key"] is not None:
    headers["Authorization"] = "Bearer " + req["key"]
data = json.dumps(req["data"]).encode() if req["data"] is not None else None
r = urllib.request.Request("http://127.0.0.1:%d%s" % (req["port"], req["path"]), data=data,
                           headers=headers)
try:
    with urllib.request.urlopen(r, timeout=req["timeout"]) as resp:
        print(json.dumps([resp.status, resp.read().decode("utf-8", "replace")]))
except urllib.error.HTTPError as e:
    print(json.dumps([e.code, e.read().decode("utf-8", "replace")]))
"""


class Box:
    def __init__(self, container):
        self.container = container

    def run(self, argv, user=None, stdin=None, timeout=REQUEST_TIMEOUT + 30):
        cmd = ["podman", "exec", "-i"] + (["--user", user] if user else []) + [self.container] + argv
        return subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout)

    def out(self, argv, **kwargs):
        proc = self.run(argv, **kwargs)
        if proc.returncode != 0:
            raise AssertionError("%s failed (%d): %s" % (argv, proc.returncode, proc.stderr))
        return proc.stdout

    def snapshot(self):
        return json.loads(self.out(["python3", "-c", SNAPSHOT, json.dumps(WATCHED)]))

    def server_pid(self):
        pids = self.run(["pgrep", "-o", "-f", SERVER]).stdout.split()
        return int(pids[0]) if pids else None

    def listening(self):
        lines = self.out(["ss", "-Hltn", "sport = :%d" % PORT]).splitlines()
        return sorted(line.split()[3] for line in lines if line.strip())

    def request(self, path, key=None, data=None):
        body = json.dumps({"port": PORT, "path": path, "key": key, "data": data,
                           "timeout": REQUEST_TIMEOUT})
        return json.loads(self.out(["python3", "-c", REQUEST], stdin=body))

    def environ(self, pid):
        # as the service user: a container's root lacks CAP_SYS_PTRACE for another user's environ
        raw = self.out(["cat", "/proc/%d/environ" % pid], user="vllm")
        return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)

    def yaml_file(self, path):
        # the reader vLLM uses for --config: PyYAML in the server's own venv
        return json.loads(self.out(["/opt/vllm/current/venv/bin/python", "-c",
                                    "import json, sys, yaml; print(json.dumps(yaml.safe_load("
                                    "open(sys.argv[1], encoding='utf-8'))))", path]))


class Unsafe(str):
    """Text Ansible must not template (YAML ``!unsafe``): a chat template is Jinja itself."""


yaml.SafeDumper.add_representer(Unsafe, lambda dumper, value: dumper.represent_scalar("!unsafe", str(value)))


def unsafe(value):
    if isinstance(value, str):
        return Unsafe(value)
    if isinstance(value, dict):
        return dict((key, unsafe(item)) for key, item in value.items())
    if isinstance(value, list):
        return [unsafe(item) for item in value]
    return value


def site(inventory, extra, literal=False):
    """One real run of site.yml with ``extra`` (a 0600 vars file, removed afterwards); with
    ``literal``, every string is marked !unsafe, as a user passes a Jinja chat template."""
    handle, path = tempfile.mkstemp(prefix="hostile-", suffix=".yml" if literal else ".json")
    try:
        with os.fdopen(handle, "w") as vars_file:
            if literal:
                yaml.safe_dump(unsafe(extra), vars_file, allow_unicode=True)
            else:
                json.dump(extra, vars_file)
        start = time.monotonic()
        proc = subprocess.run([PLAYBOOK, "--inventory", inventory,
                               os.path.join(ROOT, "site.yml"), "--extra-vars", "@" + path],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=RUN_TIMEOUT,
                              env=dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                                       ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
                                       ANSIBLE_CALLBACK_RESULT_FORMAT="json"))
        return proc, time.monotonic() - start
    finally:
        os.unlink(path)


def failure_messages(output):
    """The msg of every failed task of the run (JSON results), as text: a list of lines (the
    preflight's errors) joined by newlines."""
    found = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", output).splitlines():
        if line.startswith("fatal: [") and "FAILED! => {" in line:
            try:
                msg = json.loads(line.split("=> ", 1)[1]).get("msg", "")
            except ValueError:
                continue
            found.append("\n".join(msg) if isinstance(msg, list) else str(msg))
    return "\n".join(found)


def check(condition, what, output=""):
    if not condition:
        raise AssertionError(what + ("\n--- run output (tail) ---\n" + output[-4000:] if output else ""))


def answers_on_loopback(box, key=None):
    check(box.listening() == ["127.0.0.1:%d" % PORT], "listens on %s, not only 127.0.0.1:%d"
          % (box.listening(), PORT))
    code, _ = box.request("/health")
    check(code == 200, "/health answered %d" % code)
    code, body = box.request("/v1/completions", key, {"model": NAME, "prompt": "Hello",
                                                      "max_tokens": 4, "temperature": 0})
    check(code == 200, "a completion answered %d: %s" % (code, body[:500]))
    check(json.loads(body)["usage"]["completion_tokens"] >= 1, "a completion without tokens")


def refused_run(inventory, case):
    """One refused run: it fails in the preflight naming the input, and its output never shows
    the case's secret. Returns how long it took."""
    proc, took = site(inventory, case["extra"])
    out = proc.stdout
    check(proc.returncode != 0, "%s: the run passed" % case["category"], out)
    errors = failure_messages(out)
    check(case["needle"] in errors, "%s: no error line %r" % (case["category"], case["needle"]), out)
    check("Invalid input, nothing was changed on" in errors,
          "%s: not refused by the preflight" % case["category"], out)
    if case["secret"]:
        check(case["secret"] not in out, "%s: the secret shows in the run's output" % case["category"])
    return took


def refused_all(box, inventory, cases, total):
    """Every refused case, PARALLEL runs at a time (each fails in the preflight, before anything
    on the host changes, so they cannot disturb each other): the files the service reads and the
    server's pid taken before the first and compared after the last, the server answering on
    loopback, no case's secret in a rendered file."""
    before, pid = box.snapshot(), box.server_pid()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        futures = [pool.submit(refused_run, inventory, case) for case in cases]
        # in order, so the first failure named is the first case's
        took = [future.result() for future in futures]
    wall = time.monotonic() - start
    after = box.snapshot()
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    check(not changed, "files changed by the refused runs: %s" % changed)
    check(box.server_pid() == pid, "the server was restarted (pid %s, was %s)" % (box.server_pid(), pid))
    rendered = "".join(box.run(["cat", path]).stdout for path in RENDERED)
    for case in cases:
        check(not (case["secret"] and case["secret"] in rendered),
              "%s: the secret is in a rendered file" % case["category"])
    answers_on_loopback(box)
    for index, (case, seconds) in enumerate(zip(cases, took), 1):
        print("[%d/%d] %-25s refused in %5.1f s: %s" % (index, total, case["category"], seconds,
                                                         case["needle"][:70]), flush=True)
    print("%d refused runs, %d at a time, in %.1f s: files unchanged, server pid %d unchanged, "
          "answering on loopback" % (len(cases), PARALLEL, wall, pid), flush=True)


def served(box, inventory, extra, index, total):
    pid_before = box.server_pid()
    proc, took = site(inventory, extra, literal=True)
    out = proc.stdout
    check(proc.returncode == 0, "the run of legal inputs failed", out)
    key = extra["vllm_service_api_key"]
    check(key not in out, "the API key shows in the run's output")
    pid = box.server_pid()
    check(pid is not None and pid != pid_before, "the server was not restarted with the new settings")
    options = box.yaml_file("/etc/vllm/vllm.yaml")
    for name, value in extra["vllm_service_options"].items():
        check(options.get(name.replace("_", "-")) == value, "the options file reads %r for %s, "
              "given %r" % (options.get(name.replace("_", "-")), name, value))
    check((options["host"], options["port"], options["served-model-name"]) == ("127.0.0.1", PORT, NAME),
          "the options file moved host, port or name: %s" % options)
    env = box.environ(pid)
    for name, value in extra["vllm_service_env"].items():
        check(env.get(name) == value, "systemd gave the server %s=%r, given %r" % (name, env.get(name), value))
    check(env.get("VLLM_API_KEY") == key, "the server's VLLM_API_KEY is not the key given")
    for path in RENDERED:
        check(key not in box.run(["cat", path]).stdout, "the API key is in %s" % path)
    check(key not in box.out(["ps", "-eo", "args"]), "the API key shows in ps")
    secrets = box.out(["stat", "-c", "%U %G %a", "/etc/vllm/secrets.env"]).split()
    check(secrets == ["root", "root", "600"], "secrets.env is %s" % secrets)
    code, _ = box.request("/v1/models")
    check(code == 401, "/v1/models without the key answered %d" % code)
    answers_on_loopback(box, key)
    print("[%d/%d] %-25s served in %5.1f s: options and environment read back exactly, "
          "new key required, answering on loopback" % (index, total, "awkward legal inputs", took),
          flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--container", required=True)
    args = parser.parse_args(argv)
    box = Box(args.container)
    first = int(box.out(["cat", "/root/first-converge-server-pid"]).strip())
    check(box.server_pid() == first, "the server is not the first converge's any more (pid %s, was "
          "%d): the idempotence run restarted it" % (box.server_pid(), first))
    cases = real_run_cases(SEED)
    total = len(cases) + 1
    start = time.monotonic()
    refused_all(box, args.inventory, cases, total)
    served(box, args.inventory, served_inputs(SEED), total, total)
    print("%d real runs of generated inputs in %.0f s" % (total, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
