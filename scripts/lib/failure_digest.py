#!/usr/bin/env python3
"""The few lines that say why a test stage failed, for the very end of scripts/test's output.

CI keeps only the last part of a run's output (about 1,400 characters were seen), far below the
failure itself when a Molecule stage fails: this reads a stage's whole log and prints its failure
in a few short lines, ANSI colours and Molecule's box drawing removed::

    failure_digest.py STAGE-NAME LOGFILE [--width N] [--lines N]

- pytest: its ``FAILED``/``ERROR`` summary lines;
- Molecule (or any Ansible output): the last ``fatal:``/``failed:`` result before the first
  ``Executed: Failed`` action, with the lines of its message after it;
- anything else: the last non-empty lines.

Standard library only; exits 0 even when the log cannot be read (it says so).
"""
import argparse
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Molecule's nested-output frame ("  │ ", "  └─", "  ┌─") and the diff marker it adds
FRAME = re.compile(r"^\s*[\u2502\u2514\u250c\u2500]+\s?[+]?")
PYTEST_FAIL = re.compile(r"^(FAILED|ERROR) \S+\.py")
ANSIBLE_FAIL = re.compile(r"(fatal|failed): \[[^\]]+\]")
MOLECULE_FAILED = re.compile(r"Executed: Failed")
NOISE = re.compile(r"^(\*+|PLAY RECAP.*|TASK \[.*|RUNNING HANDLER.*)$")


def clean(line):
    """One log line without colours, Molecule's frame, surrounding blanks or runs of blanks."""
    return " ".join(FRAME.sub("", ANSI.sub("", line)).split())


def shorten(line, width):
    return line if len(line) <= width else line[: width - 3] + "..."


def digest(lines, limit=6):
    """The lines (cleaned, in order) that say why the stage failed; at most ``limit``."""
    cleaned = [clean(line) for line in lines]
    pytest_lines = [line for line in cleaned if PYTEST_FAIL.match(line)]
    if pytest_lines:
        return pytest_lines[:limit]
    end = next((i for i, line in enumerate(cleaned) if MOLECULE_FAILED.search(line)), len(cleaned))
    failures = [i for i in range(end) if ANSIBLE_FAIL.search(cleaned[i])]
    if failures:
        start = failures[-1]
        picked = [cleaned[start]]
        for line in cleaned[start + 1: end]:
            if len(picked) >= limit:
                break
            if not line or NOISE.match(line):
                if len(picked) > 1 and not line:
                    continue
                if NOISE.match(line):
                    break
                continue
            picked.append(line)
        if end < len(cleaned) and len(picked) < limit:
            picked.append(cleaned[end])
        return picked
    tail = [line for line in cleaned if line]
    return tail[-limit:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage")
    parser.add_argument("log")
    parser.add_argument("--width", type=int, default=150, help="longest line printed (150)")
    parser.add_argument("--lines", type=int, default=6, help="lines per stage (6)")
    args = parser.parse_args(argv)
    try:
        with open(args.log, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as err:
        print("%s: log not readable (%s)" % (args.stage, err))
        return 0
    print("%s:" % args.stage)
    for line in digest(lines, args.lines):
        print("  " + shorten(line, args.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
