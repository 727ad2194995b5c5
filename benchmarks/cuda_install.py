#!/usr/bin/env python3
"""The CUDA install against a bare `uv pip install` of the same lock: ratios measured in one run.

Uses the container of the Molecule `cuda` scenario (created and prepared here, destroyed at the
end): a systemd host with a stand-in nvidia-smi of driver 580.65.06, so the plan is the real
CUDA stack (vllm 0.33.0 cu130, torch 2.14.0 and the CUDA 13 wheels, ~198 packages, ~9 GB).

  product_cold  benchmarks/cuda_install.yml: the install half of provision.yml, the same roles
                (host facts, preflight, plan, Python, lock, controller wheelhouse, sync with
                bytecode, venv check), with an empty controller
                wheelhouse, no pip HTTP cache and an empty uv cache on the host
  product_warm  the same again after the host's releases were removed: a new venv from the
                warm controller wheelhouse, the host's copy of the wheels and the warm uv cache
  bare_cold     in the same container, `uv venv` + `uv pip install -r requirements.lock` (the
                lock the product wrote) from PyPI into a fresh venv with an empty uv cache
  bare_warm     the same into another fresh venv with that cache warm

Ratios reported: product_cold/bare_cold and product_warm/bare_warm. The product also compiles
bytecode for every file (the unprivileged server cannot write .pyc files), downloads through
the controller and checks the venv; the bare install does none of that. Run from the repository
root after scripts/bootstrap, scripts/setup-podman and scripts/build-image (scripts/test does
those):

  .venv/bin/python benchmarks/cuda_install.py [--json FILE] [--keep]

About 10 minutes on an idle 2-core machine; it needs ~35 GB of free disk (one venv at a time).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import molecule_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = "cuda"
HOST = "vllm-cuda"
COLD_WHEELHOUSE = os.path.join(ROOT, ".cache", "benchmark-cuda-wheelhouse")
UV = "/var/tmp/tools/venv/bin/uv"  # the product's own uv, copied aside before the bare runs


def molecule(action, environ):
    molecule_env.molecule(action, SCENARIO, environ)


def inventory(environ):
    return molecule_env.inventory(SCENARIO, environ)


def log_path(label):
    path = os.path.join(ROOT, ".artifacts", "benchmarks", "cuda-%s.log" % label)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def timed(argv, environ, label):
    start = time.monotonic()
    with open(log_path(label), "w", encoding="utf-8") as handle:
        proc = subprocess.run(argv, cwd=ROOT, env=environ, stdout=handle, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    print("%-13s %7.1f s  rc=%d  (log %s)" % (label, took, proc.returncode,
                                            os.path.relpath(log_path(label), ROOT)), flush=True)
    if proc.returncode != 0:
        raise SystemExit("%s failed; see %s" % (label, log_path(label)))
    return took


def product(environ, inv, extra, label):
    argv = [os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", inv,
            os.path.join(ROOT, "benchmarks", "cuda_install.yml"),
            "-e", json.dumps(dict({"vllm_install_backend": "auto", "vllm_install_wheelhouse": "controller"},
                                  **extra))]
    return timed(argv, environ, label)


def in_container(environ, script, label):
    return timed(["podman", "exec", HOST, "bash", "-ec", script], environ, label)


def in_container_output(environ, script):
    return subprocess.run(["podman", "exec", HOST, "bash", "-ec", script], env=environ, check=True,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


def bare(environ, cache, venv, lock, label):
    script = ("export UV_CACHE_DIR=%s UV_NO_CONFIG=1 UV_LINK_MODE=copy UV_SYSTEM_CERTS=1;"
              " %s venv -q --python /usr/bin/python3 %s; %s pip install -q --python %s/bin/python -r %s"
              % (cache, UV, venv, UV, venv, lock))
    return in_container(environ, script, label)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="leave the container running")
    args = parser.parse_args(argv)
    environ = molecule_env.env()
    molecule("destroy", environ)
    molecule("create", environ)
    molecule("prepare", environ)
    times = {}
    try:
        inv = inventory(environ)
        shutil.rmtree(COLD_WHEELHOUSE, ignore_errors=True)
        cold = {"vllm_install_wheelhouse_dir": COLD_WHEELHOUSE,
                "vllm_install_cache_dir": "/var/cache/vllm-provision/uv-benchmark-cold"}
        times["product_cold"] = product(dict(environ, PIP_NO_CACHE_DIR="1"), inv, cold, "product_cold")
        lock = in_container_output(environ, "ls -t /opt/vllm/releases/*/requirements.lock | head -1")
        in_container(environ, "cp %s /var/tmp/bench.lock" % lock, "keep_lock")
        # warm: the same install again onto a host whose releases are gone (disk: one ~10 GB venv
        # at a time), with the controller's wheelhouse, the host's wheel copy and uv cache warm
        in_container(environ, "rm -rf /opt/vllm/releases /opt/vllm/current /opt/vllm/releases.json", "clean_1")
        times["product_warm"] = product(environ, inv, cold, "product_warm")
        # the bare baseline: nothing of the product's left but the lock (and uv itself)
        in_container(environ, "cp -a /opt/vllm/tools /var/tmp/tools && rm -rf /opt/vllm/releases "
                              "/var/cache/vllm-provision", "clean_2")
        times["bare_cold"] = bare(environ, "/var/tmp/bare-cache", "/var/tmp/bare-cold", "/var/tmp/bench.lock",
                                  "bare_cold")
        in_container(environ, "rm -rf /var/tmp/bare-cold", "clean_3")
        times["bare_warm"] = bare(environ, "/var/tmp/bare-cache", "/var/tmp/bare-warm", "/var/tmp/bench.lock",
                                  "bare_warm")
        # what was downloaded: the wheels (the folder also holds the one-archive copy of them)
        size = sum(os.path.getsize(path) for path in glob.glob(os.path.join(COLD_WHEELHOUSE, "*", "*.whl")))
    finally:
        shutil.rmtree(COLD_WHEELHOUSE, ignore_errors=True)
        if not args.keep:
            molecule("destroy", environ)
    ratios = {
        "cold_product_vs_bare_uv": times["product_cold"] / times["bare_cold"],
        "warm_product_vs_bare_uv": times["product_warm"] / times["bare_warm"],
    }
    print("\nwheels downloaded once by the controller: %.2f GB" % (size / 1e9))
    print("ratios (same run; 1.0 = as fast as a bare uv install of the same lock):")
    for name, value in ratios.items():
        print("  %-28s %.2f" % (name, value))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"ratios": ratios, "seconds": times, "wheel_bytes": size}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
