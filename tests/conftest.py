"""Shared pytest setup.

Modules import their helpers as ``ansible.module_utils.<name>`` (that is how Ansible ships
``plugins/module_utils`` to a target). For the unit tests and the ``scripts/`` wrappers the same
files are plain Python modules: put them on ``sys.path`` and alias them under
``ansible.module_utils`` so a module under test resolves exactly the file in this repository.
"""
import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.dirname(os.path.abspath(__file__))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
MODULE_UTILS = os.path.join(ROOT, "plugins", "module_utils")
for sub in ("plugins/module_utils", "plugins/filter"):
    path = os.path.join(ROOT, sub)
    if path not in sys.path:
        sys.path.insert(0, path)

CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def _alias_module_utils():
    try:
        import ansible.module_utils  # noqa: F401
    except ImportError:  # plain-Python tests still work without ansible
        return
    for name in sorted(os.listdir(MODULE_UTILS)):
        if name.endswith(".py") and not name.startswith("_"):
            mod = importlib.import_module(name[:-3])
            sys.modules["ansible.module_utils." + name[:-3]] = mod


_alias_module_utils()
