#!/usr/bin/env python3
"""Fleet benchmarks: ratios between site.yml runs measured in the same session, never bare times.

Uses the three containers of the Molecule `fleet_bench` scenario (the `fleet` scenario's image,
settings and inventory with a third host; created here, destroyed at the end)
and the repository's own site.yml, exactly as users run it:

  first      a fresh install on a new host, fleet-1: an empty controller wheelhouse (so the
             stack is downloaded, without pip's HTTP cache) and an empty uv cache on the host
  noop       the same run again on fleet-1: nothing to do
  (setup)    first install on fleet-2 and fleet-3 with the scenario's own wheelhouse and shared
             uv cache, untimed: it leaves both warm
  rebuild    a forced fresh release on fleet-1 alone (vllm_python_rebuild=true): a new venv from
             the warm wheelhouse and uv cache, switched to behind the gate - the single-host rollout
  fleet      the same rebuild rollout on fleet-1..3 in the default batches (canary, then the rest)

Ratios reported: noop/first, rebuild/first (warm rebuild against a fresh install), fleet/rebuild
(three-host rollout against a single host). Run from the repository root after scripts/bootstrap,
scripts/setup-podman and scripts/build-image (scripts/test does those):

  .venv/bin/python benchmarks/fleet.py [--json FILE] [--keep]

About 20 minutes on an idle 2-core machine.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import molecule_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = "fleet_bench"


def molecule(action, environ):
    molecule_env.molecule(action, SCENARIO, environ)


def inventory(environ):
    return molecule_env.inventory(SCENARIO, environ)


# `first` starts from nothing: its own empty wheelhouse on the controller and uv cache on the host
FRESH_WHEELHOUSE = os.path.join(ROOT, ".cache", "benchmark-fresh-wheelhouse")
FRESH = {"vllm_install_wheelhouse_dir": FRESH_WHEELHOUSE,
         "vllm_install_cache_dir": "/var/cache/vllm-provision/uv-benchmark-fresh"}


def playbook(environ, inv, limit, extra=None, label=""):
    """Run site.yml against the scenario's containers; return seconds taken."""
    argv = [os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", inv, "-l", limit,
            os.path.join(ROOT, "site.yml"),
            "-e", json.dumps({"vllm_install_backend": "cpu", "vllm_install_plan_indexes": False,
                              "vllm_install_find_links": ["/opt/vllm-find-links"],
                              "vllm_service_ready_timeout": 900, **(extra or {})})]
    log = os.path.join(ROOT, ".artifacts", "benchmarks", "fleet-%s.log" % label)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as handle:
        proc = subprocess.run(argv, cwd=ROOT, env=environ, stdout=handle, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    print("%-8s %-22s %7.1f s  rc=%d  (log %s)" % (label, limit, took, proc.returncode,
                                                 os.path.relpath(log, ROOT)), flush=True)
    if proc.returncode != 0:
        raise SystemExit("%s failed; see %s" % (label, log))
    return took


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="leave the containers running")
    args = parser.parse_args(argv)
    environ = molecule_env.env()
    molecule("destroy", environ)
    molecule("create", environ)
    try:
        inv = inventory(environ)
        times = {}
        shutil.rmtree(FRESH_WHEELHOUSE, ignore_errors=True)
        fresh_env = dict(environ, PIP_NO_CACHE_DIR="1")
        times["first"] = playbook(fresh_env, inv, "fleet-1", FRESH, label="first")
        times["noop"] = playbook(fresh_env, inv, "fleet-1", FRESH, label="noop")
        playbook(environ, inv, "fleet-2,fleet-3", label="setup")
        times["rebuild"] = playbook(environ, inv, "fleet-1", {"vllm_python_rebuild": True}, label="rebuild")
        times["fleet"] = playbook(environ, inv, "fleet-1,fleet-2,fleet-3", {"vllm_python_rebuild": True},
                                  label="fleet")
    finally:
        shutil.rmtree(FRESH_WHEELHOUSE, ignore_errors=True)
        if not args.keep:
            molecule("destroy", environ)
    ratios = {
        "noop_vs_first": times["noop"] / times["first"],
        "rebuild_warm_vs_fresh_install": times["rebuild"] / times["first"],
        "three_host_rollout_vs_single_host": times["fleet"] / times["rebuild"],
    }
    print("\nratios (same session; lower is faster):")
    for name, value in ratios.items():
        print("  %-36s %.2f" % (name, value))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"ratios": ratios, "seconds": times}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
