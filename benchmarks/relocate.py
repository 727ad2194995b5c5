#!/usr/bin/env python3
"""Relocation throughput against plain `cp -r` of the same files, in the same run.

Usage: benchmarks/relocate.py [--size-mib 512] [--files 4] [--dir /var/tmp] [--rounds 3] [--json]

Writes FILES random files (SIZE_MIB in all) into a source folder under DIR, then, ROUNDS times
and alternating which goes first, copies them with `cp -r`, with `cp -r` then `sync -f`, and
with the relocation engine
(plugins/module_utils/vllm_relocate.py: sha256 while reading, fsync, page cache dropped, read
back and hashed again - verification included). Prints each run and the ratio of the medians
(relocation time / cp time). Both read the same source, which stays in the page cache after it
is written, as a model on a fast disk would be; cp's copy is not fsynced, the relocation's is.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plugins", "module_utils"))

import vllm_relocate  # noqa: E402


def make_source(root, size_mib, files):
    os.makedirs(root)
    per = size_mib * 1024 * 1024 // files
    block = os.urandom(1024 * 1024)
    for index in range(files):
        with open(os.path.join(root, "model-%05d-of-%05d.safetensors" % (index + 1, files)), "wb") as handle:
            for offset in range(0, per, len(block)):
                # vary every block so nothing could be deduplicated
                handle.write(block[: min(len(block), per - offset)][:-8] + offset.to_bytes(8, "little"))
    with open(os.path.join(root, "config.json"), "w") as handle:
        handle.write('{"architectures": ["LlamaForCausalLM"]}\n')


def run_cp(src, dst, sync=False):
    started = time.perf_counter()
    subprocess.run(["cp", "-r", src, dst], check=True)
    if sync:
        subprocess.run(["sync", "-f", dst], check=True)  # what the relocation's fsync costs cp
    return time.perf_counter() - started


def run_relocate(src, store):
    started = time.perf_counter()
    result = vllm_relocate.relocate(src, store, "model")
    elapsed = time.perf_counter() - started
    assert result["verified_files"] == result["copied_files"] > 0
    return elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--dir", default="/var/tmp")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="vllm-relocate-bench.", dir=args.dir)
    try:
        src = os.path.join(work, "src")
        make_source(src, args.size_mib, args.files)
        total = sum(os.path.getsize(os.path.join(src, name)) for name in os.listdir(src))
        times = {"cp": [], "cp+sync": [], "relocate": []}
        for round_ in range(args.rounds):
            order = ("cp", "cp+sync", "relocate") if round_ % 2 == 0 else ("relocate", "cp+sync", "cp")
            for kind in order:
                target = os.path.join(work, "%s-%d" % (kind, round_))
                if kind == "relocate":
                    elapsed = run_relocate(src, target)
                else:
                    elapsed = run_cp(src, target, sync=kind == "cp+sync")
                times[kind].append(elapsed)
                shutil.rmtree(target)
                if not args.json:
                    print("round %d  %-8s %6.2f s  %7.1f MiB/s" % (round_ + 1, kind, elapsed,
                                                                    total / 1048576.0 / elapsed))
        cp, rel = statistics.median(times["cp"]), statistics.median(times["relocate"])
        cps = statistics.median(times["cp+sync"])
        result = {"bytes": total, "files": args.files + 1, "dir": args.dir, "rounds": args.rounds,
                  "cp_s": round(cp, 3), "cp_sync_s": round(cps, 3), "relocate_s": round(rel, 3),
                  "cp_mib_s": round(total / 1048576.0 / cp, 1), "relocate_mib_s": round(total / 1048576.0 / rel, 1),
                  "ratio": round(rel / cp, 2), "ratio_vs_cp_sync": round(rel / cps, 2)}
        if args.json:
            print(json.dumps(result))
        else:
            print("median: cp %.2f s (%.1f MiB/s), cp+sync %.2f s, relocation %.2f s (%.1f MiB/s): relocation takes "
                  "%.2fx cp's time (%.2fx cp+sync's)" % (cp, result["cp_mib_s"], cps, rel, result["relocate_mib_s"],
                                                         result["ratio"], result["ratio_vs_cp_sync"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
