#!/usr/bin/env python3
"""A misspelt option refused: the time to the refusal against Ansible's own floor, in one run.

Both run against this machine (local connection, as tests/integration/ does), interleaved, for
--rounds rounds (default 3):

  floor    a play on the same host that gathers the same facts as playbooks/provision.yml
           (gather_facts: true, become: true) and runs one command: the least any run of
           site.yml can cost here
  refusal  `ansible-playbook site.yml` with vllm_service_options.max_modl_len (a misspelling of
           max_model_len) on a host without any release (a throwaway vllm_python_root that does
           not exist, the CPU backend): the time from the start of ansible-playbook to the
           refusal's line in its output, and to its exit. The refusal must come from the
           preflight's task "Refuse options the planned release does not take" (the planned
           release's kept --help=all in data/vllm_options/), with no task of vllm_install,
           vllm_model or vllm_service before it, and nothing created

Reported: the medians, refusal/floor (the ratio) and, from the refusal run's streamed output,
the seconds between task headers of the median round (where the time goes). The target of
issue 19: the refusal within 10 s of the start, before any download. Run from the repository
root after scripts/bootstrap:

  .venv/bin/python benchmarks/refusal.py [--rounds N] [--json FILE]

About a minute on an idle 2-core machine. Nothing is installed; nothing outside a temporary
directory is written.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
REFUSAL = "vllm_service_options.max_modl_len = 512: max_modl_len (--max-modl-len) is not an option"
REFUSING_TASK = "TASK [vllm_preflight : Refuse options the planned release does not take]"
LATER_ROLES = ("vllm_wsl", "vllm_python", "vllm_install", "vllm_model", "vllm_service")
TASK = re.compile(r"^TASK \[(?P<name>[^\]]+)\]")

FLOOR_PLAY = """---
- name: Ansible's floor on this host
  hosts: vllm_hosts
  become: true
  gather_facts: true
  tasks:
    - name: Run one command
      ansible.builtin.command: /bin/true
      changed_when: false
"""


def _env():
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    return env


def _timed(argv, needle=None, timeout=300):
    """Run argv, streaming its output: (seconds to exit, seconds to needle or None, rc, lines)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, universal_newlines=True, bufsize=1)
    lines, seen = [], None
    for line in proc.stdout:
        now = time.monotonic() - start
        lines.append((now, line.rstrip("\n")))
        if needle and seen is None and needle in line:
            seen = now
        if now > timeout:
            proc.kill()
            break
    rc = proc.wait(timeout=60)
    return time.monotonic() - start, seen, rc, lines


def _where_time_goes(lines):
    """[(task, seconds)] from the streamed output: the time from each task header to the next."""
    marks = [(t, m.group("name")) for t, line in lines for m in [TASK.match(line)] if m]
    end = lines[-1][0] if lines else 0.0
    first = marks[0][0] if marks else end
    out = [("ansible-playbook start-up, inventory, first play", first)]
    for (t, name), nxt in zip(marks, [m[0] for m in marks[1:]] + [end]):
        out.append((name, nxt - t))
    return out


def report_breakdown(figures, what, top, json_path=None):
    """Print the slowest ``top`` tasks of ``figures["where_the_time_goes"]`` (the median ``what``
    run's), then write ``figures`` as JSON to ``json_path`` when one is given."""
    print("where the time of the median %s run goes (seconds from each task header to the next):" % what)
    for name, seconds in sorted(figures["where_the_time_goes"], key=lambda x: -x[1])[:top]:
        print("  %6.2f  %s" % (seconds, name))
    if json_path:
        with open(json_path, "w") as handle:
            json.dump(figures, handle, indent=2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if PLAYBOOK is None:
        sys.exit("ansible-playbook is not installed (run scripts/bootstrap)")
    work = tempfile.mkdtemp(prefix="vllm-refusal-")
    try:
        inventory = os.path.join(work, "hosts.yml")
        with open(inventory, "w") as handle:
            handle.write("vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
                         "      ansible_python_interpreter: %s\n" % sys.executable)
        floor_play = os.path.join(work, "floor.yml")
        with open(floor_play, "w") as handle:
            handle.write(FLOOR_PLAY)
        floors, refusals, exits, runs = [], [], [], []
        for index in range(args.rounds):
            took, _, rc, lines = _timed([PLAYBOOK, "-i", inventory, floor_play])
            if rc != 0:
                sys.exit("the floor play failed:\n" + "\n".join(l for _, l in lines[-30:]))
            floors.append(took)
            fresh = os.path.join(work, "round-%d" % index)
            extra = {"vllm_python_root": os.path.join(fresh, "opt-vllm"),
                     "vllm_model_store": os.path.join(fresh, "models"),
                     "vllm_service_config_dir": os.path.join(fresh, "etc-vllm"),
                     "vllm_report_path": os.path.join(work, "report-%d.json" % index),
                     "vllm_install_backend": "cpu", "vllm_service_options": {"max_modl_len": 512}}
            took, seen, rc, lines = _timed([PLAYBOOK, "-i", inventory, os.path.join(ROOT, "site.yml"),
                                            "-e", json.dumps(extra)], needle=REFUSAL)
            text = "\n".join(l for _, l in lines)
            if rc != 2 or seen is None:
                sys.exit("the run was not refused (rc %d):\n%s" % (rc, text[-4000:]))
            before = text[:text.index(REFUSAL)]
            if before.rfind("TASK [") != before.rfind(REFUSING_TASK):
                sys.exit("the refusal did not come from the preflight:\n" + before[-2000:])
            later = [r for r in LATER_ROLES if "TASK [%s :" % r in text]
            if later or os.path.exists(fresh):
                sys.exit("the refused run went on (%s) or created %s" % (", ".join(later), fresh))
            refusals.append(seen)
            exits.append(took)
            runs.append(lines)
            print("round %d: floor %.2f s, refusal after %.2f s (exit %.2f s)"
                  % (index + 1, floors[-1], seen, took))
        floor, refusal = statistics.median(floors), statistics.median(refusals)
        median_run = runs[refusals.index(sorted(refusals)[len(refusals) // 2])]
        figures = {"rounds": args.rounds, "floor_s": floors, "refusal_s": refusals, "exit_s": exits,
                   "floor_median_s": floor, "refusal_median_s": refusal,
                   "exit_median_s": statistics.median(exits), "ratio_refusal_floor": refusal / floor,
                   "where_the_time_goes": _where_time_goes(median_run)}
        print("median floor %.2f s, median refusal %.2f s (exit %.2f s): refusal/floor = %.2f"
              % (floor, refusal, figures["exit_median_s"], figures["ratio_refusal_floor"]))
        print("target: refused within 10 s of the start: %s"
              % ("met" if refusal <= 10 else "NOT met (%.1f s)" % refusal))
        report_breakdown(figures, "refusal", 12, args.json)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
