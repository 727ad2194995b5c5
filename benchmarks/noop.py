#!/usr/bin/env python3
"""A run that changes nothing, against a fresh install and against Ansible's own floor, in one run.

Against this machine (local connection, README command 1's host), with throwaway paths:

  first  `ansible-playbook site.yml` on a host without any release: a fresh install (an empty uv
         cache, a new vllm_python_root, model store and configuration folder, the CPU backend,
         the builtin tiny model), ending with the readiness gate's completion
  noop   the same run again, --rounds times: it must report changed=0 and end READY (the
         readiness gate still proves the server answers)
  floor  interleaved with the no-op runs: a play on the same host that gathers the same facts
         as playbooks/provision.yml and runs one command (benchmarks/refusal.py's floor)

Then a `vllm_state: absent` run removes the server, and the temporary folder goes.

Reported: the three medians, noop/first and noop/floor (issue 19's targets: at most 0.10 and at
most 4), and where the median no-op run's time goes (seconds from each task header to the
next). The server runs through vllm-launcher where systemd is not PID 1 (as on our development
machine), else as vllm.service; the launcher and the unit live at their fixed paths, so the
benchmark refuses to run on a machine that already has either. Run from the repository root
after scripts/bootstrap:

  .venv/bin/python benchmarks/noop.py [--rounds N] [--port P] [--dir /var/tmp] [--json FILE]

About 6 minutes on an idle 2-core machine (the first install is most of it).
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refusal import FLOOR_PLAY, PLAYBOOK, ROOT, _timed, _where_time_goes, report_breakdown  # noqa: E402

FIXED_PATHS = ("/usr/local/sbin/vllm-launcher", "/etc/systemd/system/vllm.service")
RECAP = re.compile(r"^(?P<host>\S+)\s*:\s*ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+"
                   r"unreachable=(?P<unreachable>\d+)\s+failed=(?P<failed>\d+)")
READY = "vLLM READY at "
HOST = "wsl-box"


def recap(lines):
    """{host: {ok, changed, unreachable, failed}} from a run's PLAY RECAP lines."""
    out = {}
    for _, line in lines:
        match = RECAP.match(line.strip())
        if match:
            out[match.group("host")] = dict((k, int(v)) for k, v in match.groupdict().items()
                                            if k != "host")
    return out


def free_port(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def site_argv(inventory, extra):
    """ansible-playbook site.yml on this machine's host with ``extra`` as extra vars."""
    return [PLAYBOOK, "-i", inventory, "-l", HOST, os.path.join(ROOT, "site.yml"), "-e", json.dumps(extra)]


def run_site(inventory, extra, what, timeout):
    took, _, rc, lines = _timed(site_argv(inventory, extra), timeout=timeout)
    text = "\n".join(l for _, l in lines)
    if rc != 0 or READY not in text:
        sys.exit("the %s run did not end READY (rc %d):\n%s" % (what, rc, text[-5000:]))
    return took, lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=18437, help="the server's port on 127.0.0.1")
    parser.add_argument("--dir", default="/var/tmp", help="where the throwaway folder goes")
    parser.add_argument("--timeout", type=int, default=1800, help="bound on each run, seconds")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if PLAYBOOK is None:
        sys.exit("ansible-playbook is not installed (run scripts/bootstrap)")
    present = [p for p in FIXED_PATHS if os.path.lexists(p)]
    if present:
        sys.exit("this machine already has a server (%s); the benchmark needs one without"
                 % ", ".join(present))
    if not free_port(args.port):
        sys.exit("port %d on 127.0.0.1 is in use; choose another with --port" % args.port)
    work = tempfile.mkdtemp(prefix="vllm-noop-", dir=args.dir)
    os.chmod(work, 0o755)  # the server's own user reaches its venv and model through it
    # README command 1's inventory: this machine as wsl-box, its group_vars (the CPU backend,
    # PIP_FIND_LINKS as the wheelhouse, the builtin model)
    inventory = os.path.join(ROOT, "inventories", "local", "hosts.yml")
    floor_play = os.path.join(work, "floor.yml")
    with open(floor_play, "w") as handle:
        handle.write(FLOOR_PLAY)
    extra = {"vllm_python_root": os.path.join(work, "opt-vllm"),
             "vllm_model_store": os.path.join(work, "models"),
             "vllm_service_config_dir": os.path.join(work, "etc-vllm"),
             "vllm_install_cache_dir": os.path.join(work, "uv-cache"),
             "vllm_report_path": os.path.join(work, "report.json"),
             "vllm_install_backend": "cpu", "vllm_service_port": args.port}
    installed = False
    try:
        first, lines = run_site(inventory, extra, "first", args.timeout)
        installed = True
        print("first (fresh install): %.1f s, %s" % (first, recap(lines).get(HOST)))
        floors, noops, runs = [], [], []
        for index in range(args.rounds):
            took, _, rc, flines = _timed([PLAYBOOK, "-i", inventory, "-l", HOST, floor_play])
            if rc != 0:
                sys.exit("the floor play failed:\n" + "\n".join(l for _, l in flines[-30:]))
            floors.append(took)
            took, lines = run_site(inventory, extra, "no-op", args.timeout)
            counts = recap(lines).get(HOST) or {}
            if counts.get("changed") != 0:
                sys.exit("the no-op run changed something: %s\n%s"
                         % (counts, "\n".join(l for _, l in lines[-80:])))
            noops.append(took)
            runs.append(lines)
            print("round %d: floor %.2f s, no-op %.2f s (%s)" % (index + 1, floors[-1], took, counts))
        floor, noop = statistics.median(floors), statistics.median(noops)
        median_run = runs[noops.index(sorted(noops)[len(noops) // 2])]
        figures = {"rounds": args.rounds, "first_s": first, "noop_s": noops, "floor_s": floors,
                   "noop_median_s": noop, "floor_median_s": floor,
                   "ratio_noop_first": noop / first, "ratio_noop_floor": noop / floor,
                   "where_the_time_goes": _where_time_goes(median_run)}
        print("first %.1f s, median no-op %.2f s, median floor %.2f s" % (first, noop, floor))
        for name, ratio, target in (("noop/first", figures["ratio_noop_first"], 0.10),
                                    ("noop/floor", figures["ratio_noop_floor"], 4.0)):
            print("%s = %.2f (target at most %.2f: %s)"
                  % (name, ratio, target, "met" if ratio <= target else "NOT met"))
        report_breakdown(figures, "no-op", 15, args.json)
        return 0
    finally:
        if installed or any(os.path.lexists(p) for p in FIXED_PATHS):
            took, _, rc, lines = _timed(site_argv(inventory, dict(extra, vllm_state="absent")),
                                        timeout=args.timeout)
            if rc != 0:
                print("the absent run failed (rc %d); remove the server by hand:\n%s"
                      % (rc, "\n".join(l for _, l in lines[-40:])), file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
