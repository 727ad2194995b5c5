"""Shared pytest setup.

Modules import their helpers as ``ansible_collections.vllm_ops.workstation.plugins.module_utils.<name>``
(the project is the collection vllm_ops.workstation); the module_utils files import each other
relatively (``from .vllm_common import ...``). For the unit tests and the ``scripts/`` the same
files are the plain package ``module_utils`` (``plugins/`` on ``sys.path``): import it once and
alias each file under its bare name (``import vllm_plan``) and under the collection's name, so a
test, a module and a filter under test all resolve exactly the one file in this repository.
"""
import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.dirname(os.path.abspath(__file__))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
MODULE_UTILS = os.path.join(ROOT, "plugins", "module_utils")
PLUGINS = os.path.join(ROOT, "plugins")
for path in (os.path.join(PLUGINS, "filter"), PLUGINS):
    if path not in sys.path:
        sys.path.insert(0, path)
COLLECTION_UTILS = "ansible_collections.vllm_ops.workstation.plugins.module_utils"

CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def _alias_module_utils():
    sys.modules[COLLECTION_UTILS] = importlib.import_module("module_utils")
    for name in sorted(os.listdir(MODULE_UTILS)):
        if name.endswith(".py") and not name.startswith("_"):
            mod = importlib.import_module("module_utils." + name[:-3])
            sys.modules[name[:-3]] = mod
            sys.modules[COLLECTION_UTILS + "." + name[:-3]] = mod


_alias_module_utils()
