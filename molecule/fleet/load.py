#!/usr/bin/env python3
"""A bounded load generator for the fleet scenario, run on the router container: completions
through the router at a fixed rate until a stop file appears or --duration passes (at most
--max-requests), each with a timeout. Prints and writes a JSON summary: sent, ok, failed, the
p50/p99 latency, the first errors, and (with --metrics) how many requests each server finished
(vllm:request_success_total before and after, read from each server's /metrics).

    load.py --url http://127.0.0.1:30000 --key KEY --rate 2 --duration 600 --stop /tmp/stop \
        --out /tmp/load.json --metrics fleet-1=http://fleet-1:8000/metrics ...
"""
import argparse
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request

_SUCCESS = re.compile(r"^vllm:request_success_total(\{[^}]*\})?\s+([0-9.eE+]+)", re.M)


def _get(url, key=None, timeout=10):
    req = urllib.request.Request(url, headers={"Authorization": "Bearer " + key} if key else {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.read().decode()


def finished(metrics):
    counts = {}
    for item in metrics:
        name, url = item.split("=", 1)
        try:
            counts[name] = sum(float(v) for _, v in _SUCCESS.findall(_get(url)))
        except (OSError, ValueError):
            counts[name] = None
    return counts


def percentile(values, pct):
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100.0))], 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=5000)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--stop", default="")
    parser.add_argument("--out", default="")
    parser.add_argument("--metrics", nargs="*", default=[])
    args = parser.parse_args()

    model = json.loads(_get(args.url + "/v1/models", args.key))["data"][0]["id"]
    before = finished(args.metrics)
    results, lock, threads = [], threading.Lock(), []

    def one(index):
        body = json.dumps({"model": model, "prompt": "load %d" % index, "max_tokens": 4}).encode()
        req = urllib.request.Request(args.url + "/v1/completions", data=body, headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + args.key})
        start = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=args.timeout) as resp:
                resp.read()
                outcome = (resp.status, None)
        except urllib.error.HTTPError as err:
            outcome = (err.code, err.read()[:200].decode(errors="replace"))
        except OSError as err:
            outcome = (None, repr(err)[:200])
        with lock:
            results.append({"status": outcome[0], "error": outcome[1],
                            "latency": time.monotonic() - start})

    began = time.monotonic()
    for index in range(args.max_requests):
        due = began + index / args.rate
        now = time.monotonic()
        if now - began > args.duration or (args.stop and os.path.exists(args.stop)):
            break
        if due > now:
            time.sleep(due - now)
        thread = threading.Thread(target=one, args=(index,), daemon=True)
        thread.start()
        threads.append(thread)
    elapsed = time.monotonic() - began
    for thread in threads:
        thread.join(args.timeout + 5)
    after = finished(args.metrics)
    ok = [r for r in results if r["status"] == 200]
    failed = [r for r in results if r["status"] != 200]
    summary = {
        "sent": len(threads), "ok": len(ok), "failed": len(failed),
        "rate": round(len(threads) / elapsed, 2) if elapsed else None, "seconds": round(elapsed, 1),
        "p50_s": percentile([r["latency"] for r in ok], 50),
        "p99_s": percentile([r["latency"] for r in ok], 99),
        "errors": [{"status": r["status"], "error": r["error"]} for r in failed[:5]],
        "per_server": {name: (None if before.get(name) is None or after[name] is None
                              else after[name] - before[name]) for name in after},
    }
    text = json.dumps(summary, sort_keys=True)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
