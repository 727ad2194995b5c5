"""Every plugin's DOCUMENTATION, EXAMPLES and RETURN parse as YAML, as ansible-doc reads them.

A string that does not parse is only a warning in a run ("Unable to parse documentation in python
file"), so nothing else fails on it. The strings are read from the source with ``ast``: nothing
is imported.
"""
import ast
import glob
import os

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLUGINS = sorted(glob.glob(os.path.join(ROOT, "plugins", "*", "*.py"))
                 + glob.glob(os.path.join(ROOT, "molecule", "shared", "plugins", "*", "*.py")))
DOC_NAMES = ("DOCUMENTATION", "EXAMPLES", "RETURN")


def doc_strings(path):
    """{name: text} of the module-level string constants named in DOC_NAMES."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in DOC_NAMES:
                    out[target.id] = node.value.value
    return out


def problems(path):
    """What does not parse, as 'NAME: error' lines."""
    out = []
    for name, text in sorted(doc_strings(path).items()):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            out.append("%s: %s" % (name, str(error).replace("\n", " ")))
            continue
        if name == "DOCUMENTATION" and not isinstance(data, dict):
            out.append("%s: not a mapping but %s" % (name, type(data).__name__))
    return out


def test_the_plugins_are_found():
    documented = [p for p in PLUGINS if "DOCUMENTATION" in doc_strings(p)]
    assert len(documented) >= 10, documented


@pytest.mark.parametrize("path", PLUGINS, ids=[os.path.relpath(p, ROOT) for p in PLUGINS])
def test_plugin_documentation_parses(path):
    assert problems(path) == []


def test_a_key_in_a_description_is_reported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('DOCUMENTATION = r"""\nname: x\ndescription:\n  - Messages the roles show: C(a),\n'
                   '    C(b) (after a gate), and more.\n"""\n')
    assert problems(str(bad)) and problems(str(bad))[0].startswith("DOCUMENTATION:")
