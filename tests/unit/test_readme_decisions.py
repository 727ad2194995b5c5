# -*- coding: utf-8 -*-
"""README's "How it decides": each decision, the function that makes it, and who applies it.

The section holds one table, ``| Decision | Function | Applied by |``, one row a decision. Only
what stands between backticks in the Function and Applied by cells is checked; the words around it
are for the reader. Something else between backticks there is reported, so that a misspelt
reference cannot pass as prose.

Function cell, each backticked reference one of:

- ``path.py:name`` or ``path.py:Class.method``: the file exists and defines it (``ast``: a
  top-level ``def`` or ``class``, or a method of a top-level class);
- ``path.yml:key``: a Jinja expression not (yet) moved into a function; the file exists and sets
  that key (a line ``key:``);
- ``path`` (a data file or folder, e.g. ``data/vllm_compat.yml``): it exists.

Every row names at least one ``.py:`` or ``.yml:`` reference.

Applied by cell, each backticked reference one of:

- a path (it holds a ``/``): the file exists and mentions, as a whole word, the name of one of the
  row's functions or keys (the part after the last ``:`` or ``.``) or one of the wrapper names of
  the same cell;
- a wrapper name (a bare identifier, or ``Class.method``): a filter registered in
  ``plugins/filter/vllm.py``, a module in ``plugins/modules/``, a callback in
  ``plugins/callback/``, or a function, class or method defined in a file under ``plugins/``. It
  must reach one of the row's ``.py:`` functions through calls that ``ast`` resolves: a name
  defined in the same file, a name imported with ``from X import name``, ``X.name`` on an
  imported ``module_utils`` module, ``self.name`` in a class, and a class's methods; at most
  ``MAX_DEPTH`` calls deep. A module or callback reaches what any code in its file calls.

So the rule for "applied by" is: the file names the function, or names a filter, module, callback
or function that is shown (by the call graph) to call it.
"""
from __future__ import absolute_import, division, print_function

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECTION = "## How it decides"
MIN_DECISIONS = 20
MAX_DEPTH = 12

_PY_REF = re.compile(r"^([\w./-]+\.py):([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)$")
_YML_REF = re.compile(r"^([\w./-]+\.ya?ml):([A-Za-z_]\w*)$")
_PATH = re.compile(r"^[\w.-]+(?:/[\w.-]+)+/?$")
_WRAPPER = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$")
_TICKS = re.compile(r"`([^`]+)`")
_MODULE_UTILS = "plugins/module_utils"
# the names module_utils is imported under: the collection's (modules, the filter under Ansible), the
# plain package (scripts, the filter in plain Python), and Ansible's legacy one
_UTILS_PACKAGES = ("ansible_collections.vllm_ops.workstation.plugins.module_utils", "module_utils",
                   "ansible.module_utils")


def section(text, heading=SECTION):
    """The lines of ``heading``'s section (up to the next ``## `` heading)."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    except StopIteration:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start + 1:end]


def table_rows(lines):
    """``[(decision, function cell, applied-by cell)]`` of the section's table; problems."""
    rows, problems, header = [], [], None
    for number, line in enumerate(lines, 1):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            if header != ["decision", "function", "applied by"]:
                problems.append("table header is %r, not Decision | Function | Applied by" % (cells,))
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if len(cells) != 3:
            problems.append("row %r has %d cells, not 3" % (line, len(cells)))
            continue
        rows.append(tuple(cells))
    return rows, problems


# --------------------------------------------------------------------------- the code's index

class CodeIndex(object):
    """Definitions and resolvable calls of every Python file under plugins/."""

    def __init__(self, root):
        self.root = root
        self.defs = {}      # (path, qualname) -> ast node
        self.edges = {}     # (path, qualname) -> set of (path, qualname)
        self.trees = {}
        for folder, _, names in os.walk(os.path.join(root, "plugins")):
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                    self._add(path)
        self.filters = self._filters()

    # -- building
    def _module_path(self, dotted):
        stem = dotted.rsplit(".", 1)[-1]
        if dotted == stem or dotted in ["%s.%s" % (package, stem) for package in _UTILS_PACKAGES]:
            path = "%s/%s.py" % (_MODULE_UTILS, stem)
            if os.path.isfile(os.path.join(self.root, path)):
                return path
        return None

    def _add(self, path):
        with open(os.path.join(self.root, path)) as handle:
            tree = ast.parse(handle.read(), path)
        self.trees[path] = tree
        aliases, imported = {}, {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = self._module_path(alias.name)
                    if target:
                        aliases[alias.asname or alias.name.rsplit(".", 1)[-1]] = target
            elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
                package = node.module or _UTILS_PACKAGES[0]  # ``from . import x`` in module_utils
                for alias in node.names:
                    as_module = self._module_path("%s.%s" % (package, alias.name))
                    if package in _UTILS_PACKAGES and as_module:
                        aliases[alias.asname or alias.name] = as_module
                        continue
                    target = self._module_path(package)
                    if target:
                        imported[alias.asname or alias.name] = (target, alias.name)
        local = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                local[node.name] = node
                if isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if isinstance(item, ast.FunctionDef):
                            local["%s.%s" % (node.name, item.name)] = item
        for qual, node in local.items():
            self.defs[(path, qual)] = node
            cls = qual.split(".")[0] if "." in qual or isinstance(node, ast.ClassDef) else None
            self.edges[(path, qual)] = self._calls(node, path, local, aliases, imported, cls)
        self.edges[(path, "<file>")] = self._calls(tree, path, local, aliases, imported, None)

    @staticmethod
    def _calls(node, path, local, aliases, imported, cls):
        found = set()
        if isinstance(node, ast.ClassDef):
            found.update((path, "%s.%s" % (node.name, item.name)) for item in node.body
                         if isinstance(item, ast.FunctionDef))
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                if sub.id in local:
                    found.add((path, sub.id))
                elif sub.id in imported:
                    found.add(imported[sub.id])
            elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
                base = sub.value.id
                if base in aliases:
                    found.add((aliases[base], sub.attr))
                elif base in ("self", "cls") and cls and "%s.%s" % (cls, sub.attr) in local:
                    found.add((path, "%s.%s" % (cls, sub.attr)))
        return found

    def _filters(self):
        """``{filter name: (path, qualname)}`` from plugins/filter/vllm.py's FilterModule."""
        path = "plugins/filter/vllm.py"
        tree = self.trees.get(path)
        found = {}
        if tree is None:
            return found
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = self._module_path(alias.name)
                    if target:
                        aliases[alias.asname or alias.name] = target
            elif isinstance(node, ast.ImportFrom) and node.module in _UTILS_PACKAGES:
                for alias in node.names:
                    target = self._module_path("%s.%s" % (node.module, alias.name))
                    if target:
                        aliases[alias.asname or alias.name] = target
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                        continue
                    if isinstance(value, ast.Name):
                        found[key.value] = (path, value.id)
                    elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                            and value.value.id in aliases:
                        found[key.value] = (aliases[value.value.id], value.attr)
        return found

    # -- questions
    def defines(self, path, qual):
        return (path, qual) in self.defs

    def wrapper_starts(self, name):
        """The call-graph nodes a wrapper name can stand for (empty: it names nothing)."""
        starts = []
        if name in self.filters:
            starts.append(self.filters[name])
        for kind in ("modules", "callback"):
            path = "plugins/%s/%s.py" % (kind, name)
            if (path, "<file>") in self.edges:
                starts.append((path, "<file>"))
        starts.extend(key for key in self.defs if key[1] == name)
        return starts

    def reaches(self, starts, goals, max_depth=MAX_DEPTH):
        seen, frontier = set(starts), list(starts)
        for _ in range(max_depth + 1):
            if any(node in goals for node in frontier):
                return True
            nxt = []
            for node in frontier:
                for target in self.edges.get(node, ()):
                    if target not in seen:
                        seen.add(target)
                        nxt.append(target)
            frontier = nxt
        return False


def mentions(root, path, names):
    """Whether the file at ``path`` holds one of ``names`` as a whole word."""
    with open(os.path.join(root, path), errors="replace") as handle:
        text = handle.read()
    return any(re.search(r"(?<![\w])%s(?![\w])" % re.escape(n), text) for n in names)


def yaml_sets(root, path, key):
    with open(os.path.join(root, path)) as handle:
        return re.search(r"^\s*-?\s*%s\s*:" % re.escape(key), handle.read(), re.M) is not None


# --------------------------------------------------------------------------- the check

def check_rows(rows, root=ROOT, index=None):
    """Problems (strings) with the table's rows; empty when every reference holds."""
    index = index or CodeIndex(root)
    problems = []
    for decision, function_cell, applied_cell in rows:
        where = "row %r" % decision
        goals, names, refs = set(), [], 0
        for token in _TICKS.findall(function_cell):
            py, yml = _PY_REF.match(token), _YML_REF.match(token)
            if py:
                refs += 1
                path, qual = py.groups()
                names.append(qual.rsplit(".", 1)[-1])
                if not os.path.isfile(os.path.join(root, path)):
                    problems.append("%s: %s: no file %s" % (where, token, path))
                elif not path.startswith("plugins/") or not index.defines(path, qual):
                    problems.append("%s: %s: %s defines no %s" % (where, token, path, qual))
                else:
                    goals.add((path, qual))
            elif yml:
                refs += 1
                path, key = yml.groups()
                names.append(key)
                if not os.path.isfile(os.path.join(root, path)):
                    problems.append("%s: %s: no file %s" % (where, token, path))
                elif not yaml_sets(root, path, key):
                    problems.append("%s: %s: %s sets no %s" % (where, token, path, key))
            elif _PATH.match(token):
                if not os.path.exists(os.path.join(root, token)):
                    problems.append("%s: %s does not exist" % (where, token))
            else:
                problems.append("%s: `%s` in the Function cell is no path.py:function, path.yml:key "
                                "or path" % (where, token))
        if not refs:
            problems.append("%s: names no function (path.py:function) or Jinja key (path.yml:key)" % where)
        tokens = _TICKS.findall(applied_cell)
        wrappers = [t for t in tokens if _WRAPPER.match(t) and "/" not in t]
        if not tokens:
            problems.append("%s: the Applied by cell names nothing" % where)
        for token in tokens:
            if token in wrappers:
                starts = index.wrapper_starts(token)
                if not starts:
                    problems.append("%s: %s is no filter, module, callback or function under plugins/"
                                    % (where, token))
                elif not goals:
                    problems.append("%s: wrapper %s, but the row names no Python function to reach"
                                    % (where, token))
                elif not index.reaches(starts, goals):
                    problems.append("%s: %s does not call %s (not even through other functions)"
                                    % (where, token, " or ".join(sorted(q for _, q in goals))))
            elif _PATH.match(token):
                if not os.path.isfile(os.path.join(root, token)):
                    problems.append("%s: applied by %s, which does not exist" % (where, token))
                elif not mentions(root, token, names + [w.rsplit(".", 1)[-1] for w in wrappers]):
                    problems.append("%s: applied by %s, which mentions none of %s"
                                    % (where, token, ", ".join(names + wrappers)))
            else:
                problems.append("%s: `%s` in the Applied by cell is no path or wrapper name"
                                % (where, token))
    return problems


def check_text(text, root=ROOT, index=None):
    lines = section(text)
    if lines is None:
        return [], ["no %r section" % SECTION]
    rows, problems = table_rows(lines)
    return rows, problems + check_rows(rows, root, index)


@pytest.fixture(scope="module")
def index():
    return CodeIndex(ROOT)


@pytest.fixture(scope="module")
def readme():
    with open(os.path.join(ROOT, "README.md")) as handle:
        return handle.read()


def test_the_section_lists_enough_decisions(readme, index):
    rows, _ = check_text(readme, index=index)
    with_python = [r for r in rows if any(_PY_REF.match(t) for t in _TICKS.findall(r[1]))]
    assert len(rows) >= MIN_DECISIONS, "only %d decisions listed" % len(rows)
    assert len(with_python) >= MIN_DECISIONS, "only %d decisions name a Python function" % len(with_python)


def test_every_function_and_applier_named_exists(readme, index):
    _, problems = check_text(readme, index=index)
    assert problems == [], "\n".join(problems)


SAMPLE = """\
# x

## How it decides

| Decision | Function | Applied by |
|---|---|---|
| {decision} | {function} | {applied} |

## Next
"""


def _sample(index, function, applied, decision="the plan"):
    return check_text(SAMPLE.format(decision=decision, function=function, applied=applied), index=index)


def test_a_correct_sample_passes(index):
    rows, problems = _sample(index, "`plugins/module_utils/vllm_plan.py:_choose_python`",
                             "filter `vllm_plan` in `roles/vllm_preflight/tasks/main.yml`")
    assert len(rows) == 1 and problems == []


@pytest.mark.parametrize("function, applied, expected", [
    # a misspelt function
    ("`plugins/module_utils/vllm_plan.py:plann`", "`scripts/plan`", "defines no plann"),
    # a misspelt method
    ("`plugins/module_utils/vllm_report.py:EventCollector.reprot`", "`scripts/provision`",
     "defines no EventCollector.reprot"),
    # a misspelt file
    ("`plugins/module_utils/vllm_plna.py:plan`", "`scripts/plan`", "no file"),
    # a Jinja key the file does not set
    ("`roles/vllm_service/vars/main.yml:__vllm_service_managr`", "`roles/vllm_service/tasks/main.yml`",
     "sets no __vllm_service_managr"),
    # an applier that never mentions the function nor a wrapper
    ("`plugins/module_utils/vllm_release.py:to_prune`", "`roles/vllm_model/tasks/hub.yml`",
     "mentions none of"),
    # a wrapper that does not call the function
    ("`plugins/module_utils/vllm_release.py:to_prune`", "filter `vllm_service_url`", "does not call"),
    # a misspelt wrapper
    ("`plugins/module_utils/vllm_release.py:to_prune`", "module `vllm_relase`", "is no filter"),
    # an applier file that does not exist
    ("`plugins/module_utils/vllm_release.py:to_prune`", "`roles/vllm_service/tasks/prune.yml`",
     "does not exist"),
    # prose between backticks in the Function cell
    ("`the planner`", "`scripts/plan`", "no path.py:function"),
])
def test_a_wrong_name_is_reported(index, function, applied, expected):
    rows, problems = _sample(index, function, applied)
    assert len(rows) == 1
    assert any(expected in p for p in problems), problems


def test_a_missing_section_or_empty_table_is_reported(index):
    assert check_text("# nothing here\n", index=index)[1]
    rows, problems = check_text("## How it decides\n\nprose only\n", index=index)
    assert rows == [] and problems == []  # the count test above is what refuses an empty table
