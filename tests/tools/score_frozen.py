#!/usr/bin/env python3
"""Score the doctor of one git commit on one labelled set of tests/fixtures/logs.

The doctor (plugins/module_utils/vllm_doctor.py and its parts vllm_doctor_*.py) is read with ``git
show <commit>:<path>`` into a temporary directory and imported from there, so the rules scored are
exactly the committed ones, whatever the work tree holds. Every ``labels*.tsv`` in
tests/fixtures/logs is read; the rows whose ``set`` column equals ``--set`` are diagnosed. A row
counts as correct when the category matches; the finer ``cause`` is reported beside it (scored only
where the row names one).

    python3 tests/tools/score_frozen.py                      # commit 9817e94, set heldout-a
    python3 tests/tools/score_frozen.py --commit HEAD --set heldout-a
    python3 tests/tools/score_frozen.py --commit 6d788a0 --set heldout-d,heldout-e   # several sets
"""
import argparse
import csv
import glob
import importlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LOGS = os.path.join(ROOT, "tests", "fixtures", "logs")
DOCTOR = "plugins/module_utils/vllm_doctor.py"
FROZEN = "9817e94"


def _git_show(commit, path):
    try:
        return subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (commit, path)], check=True,
                              capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as error:
        sys.exit("score_frozen: git show %s:%s failed: %s" % (commit, path, error.stderr.strip()))


def load_doctor(commit):
    """Import the doctor as it is at ``commit``: vllm_doctor.py and its parts beside it there
    (vllm_doctor_*.py, since it was split), as a package of their own in a temporary directory, so
    that neither the work tree's parts nor another commit's are imported; a clear error when git
    cannot show it."""
    sources = {os.path.basename(DOCTOR): _git_show(commit, DOCTOR)}
    listed = subprocess.run(["git", "-C", ROOT, "ls-tree", "--name-only", commit, os.path.dirname(DOCTOR) + "/"],
                            check=True, capture_output=True, text=True).stdout.split()
    for path in listed:
        name = os.path.basename(path)
        if name.startswith("vllm_doctor_") and name.endswith(".py"):
            sources[name] = _git_show(commit, path)
    tmp = tempfile.mkdtemp(prefix="doctor-%s-" % commit.replace("/", "_"))
    package = tempfile.mkdtemp(prefix="doctor_%s_" % re.sub(r"\W", "_", commit), dir=tmp)
    for name, source in dict(sources, **{"__init__.py": ""}).items():
        with open(os.path.join(package, name), "w", encoding="utf-8") as handle:
            handle.write(source)
    sys.path.insert(0, tmp)
    try:
        return importlib.import_module(os.path.basename(package) + ".vllm_doctor")
    finally:
        sys.path.remove(tmp)


def rows(wanted_set):
    """Rows (file, category, cause) of every labels*.tsv whose set is ``wanted_set`` (one set, or
    several joined by commas: ``heldout-d,heldout-e``)."""
    wanted = set(name.strip() for name in wanted_set.split(",") if name.strip())
    found = []
    for path in sorted(glob.glob(os.path.join(LOGS, "labels*.tsv"))):
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                if (row.get("set") or "dev") in wanted:
                    found.append((row["file"], row["category"], (row.get("cause") or "").strip()))
    return found


def score(doctor, cases):
    """Per-category [correct, total], cause [correct, labelled] and the misses."""
    per_category, misses, cause_score = {}, [], [0, 0]
    for name, expected, cause in cases:
        with open(os.path.join(LOGS, name), encoding="utf-8", errors="replace", newline="") as handle:
            result = doctor.diagnose(handle.read())
        got, got_cause = result["category"], result.get("cause") or ""
        tally = per_category.setdefault(expected, [0, 0])
        tally[1] += 1
        if got == expected:
            tally[0] += 1
        else:
            misses.append((name, expected, got, got_cause, result.get("evidence") or ""))
        if cause:
            cause_score[1] += 1
            cause_score[0] += int(got == expected and got_cause == cause)
    return per_category, cause_score, misses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commit", default=FROZEN, help="git commit whose doctor is scored (default %(default)s)")
    parser.add_argument("--set", dest="wanted_set", default="heldout-a",
                        help="the labels' set column to score, or several joined by commas "
                             "(default %(default)s)")
    args = parser.parse_args(argv)
    cases = rows(args.wanted_set)
    if not cases:
        sys.exit("score_frozen: no row of tests/fixtures/logs/labels*.tsv has set %r" % args.wanted_set)
    per_category, cause_score, misses = score(load_doctor(args.commit), cases)
    correct = sum(c for c, _ in per_category.values())
    print("doctor at %s on set %s" % (args.commit, args.wanted_set))
    for category in sorted(per_category):
        ok, total = per_category[category]
        print("  %-28s %3d/%-3d" % (category, ok, total))
    print("total %d/%d = %.1f%%" % (correct, len(cases), 100.0 * correct / len(cases)))
    if cause_score[1]:
        print("cause (category and cause right, where labelled) %d/%d = %.1f%%"
              % (cause_score[0], cause_score[1], 100.0 * cause_score[0] / cause_score[1]))
    for name, expected, got, got_cause, evidence in misses:
        print("MISS %s: labelled %s, got %s (%s) on %r" % (name, expected, got, got_cause or "-", evidence[:120]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
