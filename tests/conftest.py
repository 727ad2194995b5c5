"""Shared pytest setup: make plugins/module_utils importable as plain modules."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("plugins/module_utils", "plugins/filter", "plugins/modules"):
    path = os.path.join(ROOT, sub)
    if path not in sys.path:
        sys.path.insert(0, path)

CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
