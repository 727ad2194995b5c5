"""The Jinja budget of the roles: the plan decides, the roles apply.

Every Jinja expression in roles/ -- a ``{{ ... }}`` or ``{% ... %}`` in any YAML file or template,
and the bare conditionals of ``when:``, ``that:``, ``failed_when:``, ``changed_when:`` and
``until:`` -- stays within LIMIT characters (whitespace runs counted as one space, delimiters
included). A longer one is a decision: it belongs in a pure Python function in
plugins/module_utils/, exposed as a filter in plugins/filter/vllm.py and unit-tested there.
The roles' vars/ files carry no inline ``a if b else c`` at all.

Measured when this test came (expressions over 200 / over 250 characters; inline if/else in
roles/ / in roles/*/vars/): 24 / 17; 82 / 20 before, 0 / 0; 35 / 0 after.
"""
import io
import os
import re

import jinja2
import yaml

from vllm_testlib import ROOT

LIMIT = 200
ROLES = os.path.join(ROOT, "roles")
CONDITIONALS = ("when", "that", "failed_when", "changed_when", "until")
TEMPLATED = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_LEXER = jinja2.Environment()


def _squash(text):
    return re.sub(r"\s+", " ", text.strip())


def _inline_ifs(expression):
    """How many inline ``x if c else y`` an expression holds (string literals ignored; the
    statement keyword of ``{% if %}``/``{% elif %}`` is not one, nor a loop's ``for x in y if c``
    filter, which has no else)."""
    text = expression if expression.startswith(("{{", "{%")) else "{{ " + expression + " }}"
    count = 0
    names = []
    try:
        tokens = list(_LEXER.lex(text))
    except jinja2.TemplateSyntaxError:
        tokens = []
    for _line, kind, value in tokens:
        if kind in ("variable_begin", "block_begin"):
            names = []
        elif kind in ("variable_end", "block_end"):
            opened = 0
            for index, name in enumerate(names):
                if name == "if" and not (index == 0 and names[0] == "if"):
                    opened += 1
                elif name == "else" and opened:
                    opened -= 1
                    count += 1
            names = []
        elif kind == "name" and value in ("if", "else", "elif"):
            names.append(value)
        elif kind == "name" and not names:
            names.append(value)
    return count


def _scalars(node, key=None):
    """(scalar node, the mapping key it sits under) for every scalar of a composed YAML tree."""
    if isinstance(node, yaml.ScalarNode):
        yield node, key
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item, key)
    elif isinstance(node, yaml.MappingNode):
        for name, value in node.value:
            yield from _scalars(value, name.value if isinstance(name, yaml.ScalarNode) else None)


def expressions(text, yaml_file):
    """(line, expression) for every Jinja expression in a file's text."""
    found = []
    if not yaml_file:
        for match in TEMPLATED.finditer(text):
            found.append((text.count("\n", 0, match.start()) + 1, match.group(0)))
        return found
    for document in yaml.compose_all(io.StringIO(text), Loader=yaml.SafeLoader):
        if document is None:
            continue
        for node, key in _scalars(document):
            value = node.value
            if not isinstance(value, str):
                continue
            # a block scalar (| or >) starts on the line after its indicator
            line = node.start_mark.line + (2 if node.style in ("|", ">") else 1)
            if key in CONDITIONALS and node.tag == "tag:yaml.org,2002:str" and "{{" not in value:
                # a bare conditional: the whole scalar is a Jinja expression
                if node.style is None and value.strip().lower() in ("true", "false"):
                    continue
                found.append((line, value))
                continue
            for match in TEMPLATED.finditer(value):
                found.append((line + value.count("\n", 0, match.start()), match.group(0)))
    return found


def role_files(root=ROLES):
    for folder, _dirs, names in sorted(os.walk(root)):
        for name in sorted(names):
            if name.endswith((".yml", ".yaml", ".j2")):
                yield os.path.join(folder, name)


def scan(root=ROLES):
    """(path relative to root's parent, line, squashed length, expression, inline if/else count)
    for every Jinja expression under root."""
    rows = []
    for path in role_files(root):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for line, expression in expressions(text, path.endswith((".yml", ".yaml"))):
            squashed = _squash(expression)
            rows.append((os.path.relpath(path, os.path.dirname(root)), line, len(squashed),
                         squashed, _inline_ifs(squashed)))
    return rows


def _in_vars(relpath):
    parts = relpath.split(os.sep)
    return len(parts) > 3 and parts[0] == "roles" and parts[2] == "vars"


def test_the_scanner_finds_the_roles_expressions():
    rows = scan()
    # not vacuous: the roles hold hundreds of expressions, in YAML and in the templates
    assert len(rows) > 500
    assert any(path.endswith(".j2") for path, *_ in rows)
    assert sum(1 for path, *_ in rows if _in_vars(path)) > 30
    assert sum(1 for *_, ifs in rows if ifs) > 10


def test_no_expression_in_roles_is_over_the_limit():
    long = ["%s:%d: %d chars: %s" % (path, line, length, text[:80])
            for path, line, length, text, _ifs in scan() if length > LIMIT]
    assert long == [], "Jinja expressions over %d characters:\n%s" % (LIMIT, "\n".join(long))


def test_no_inline_if_else_in_the_roles_vars():
    inline = ["%s:%d: %s" % (path, line, text[:100])
              for path, line, _length, text, ifs in scan() if ifs and _in_vars(path)]
    assert inline == [], "inline if/else in roles/*/vars/:\n%s" % "\n".join(inline)


# --- the scanner on small samples -------------------------------------------------------------

SAMPLE = """\
- name: A task
  ansible.builtin.debug:
    msg: "{{ a if b else c }}"
  when: x | bool and y
- name: Another
  ansible.builtin.assert:
    that:
      - z is defined
      - "w == 1"
  changed_when: false
  failed_when: >-
    r.rc != 0
    and 'gone' not in r.stderr
  vars:
    long: >-
      {{ one
         | default(two) }}
"""


def test_the_scanner_reads_yaml_expressions_and_bare_conditionals():
    found = expressions(SAMPLE, True)
    assert found == [(3, "{{ a if b else c }}"), (4, "x | bool and y"), (8, "z is defined"),
                     (9, "w == 1"), (12, "r.rc != 0 and 'gone' not in r.stderr"),
                     (16, "{{ one\n   | default(two) }}")]
    assert _squash(found[-1][1]) == "{{ one | default(two) }}"


def test_the_scanner_reads_template_expressions_with_their_lines():
    text = "a={{ x }}\n{% if y %}\nb={{ z\n  | int }}\n{% endif %}\n"
    assert expressions(text, False) == [(1, "{{ x }}"), (2, "{% if y %}"), (3, "{{ z\n  | int }}"),
                                        (5, "{% endif %}")]


def test_inline_if_else_is_told_from_statements_and_strings():
    assert _inline_ifs("{{ a if b else c }}") == 1
    assert _inline_ifs("{{ (a if b else c) ~ (d if e else f) }}") == 2
    assert _inline_ifs("a if b else c") == 1
    assert _inline_ifs("{% if a %}") == 0
    assert _inline_ifs("{% elif a %}") == 0
    assert _inline_ifs("{% else %}") == 0
    assert _inline_ifs("{% for x in y if x %}") == 0
    assert _inline_ifs("{{ 'if it is else' ~ a }}") == 0
    assert _inline_ifs("{% if (a if b else c) %}") == 1
    assert _inline_ifs("{% set v = a if b else c %}") == 1


def test_the_scan_flags_long_expressions_and_vars_inline_ifs(tmp_path):
    role = tmp_path / "roles" / "r"
    (role / "vars").mkdir(parents=True)
    (role / "templates").mkdir()
    (role / "vars" / "main.yml").write_text("---\nv: \"{{ a if b else c }}\"\nw: \"{{ %s }}\"\n"
                                           % ("x" * 200))
    (role / "templates" / "t.j2").write_text("{{ y }}\n")
    rows = scan(str(tmp_path / "roles"))
    assert [(path, line, length, ifs) for path, line, length, _text, ifs in rows] == [
        (os.path.join("roles", "r", "templates", "t.j2"), 1, 7, 0),
        (os.path.join("roles", "r", "vars", "main.yml"), 2, 19, 1),
        (os.path.join("roles", "r", "vars", "main.yml"), 3, 206, 0)]
    assert _in_vars(rows[1][0]) and not _in_vars(rows[0][0])
