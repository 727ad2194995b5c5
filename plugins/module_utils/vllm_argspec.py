# -*- coding: utf-8 -*-
"""Types and choices of every role's variables, from the roles' ``meta/argument_specs.yml``.

The preflight checks them with ``ansible.builtin.validate_argument_spec`` before anything on a
host changes (Ansible's own check runs only when each role starts, too late for the roles after
vllm_python). This module merges the roles' specs into the one spec that task checks, names the
variables the preflight reads (the specs are the one list of them), and words the check's
errors as the preflight's other errors are: the variable, the value and what is accepted, one
line each, and never the value of a ``no_log`` option. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import re

__metaclass__ = type

_ACCEPTED = {
    "str": "text", "path": "a path", "int": "a whole number", "float": "a number",
    "bool": "true or false", "dict": "a mapping", "list": "a list", "raw": "any value",
}
_ELEMENTS = {"str": "strings", "path": "paths", "int": "whole numbers", "float": "numbers",
             "bool": "true or false", "dict": "mappings", "list": "lists"}


def spec_options(specs):
    """The options of the ``main`` entry point of each parsed argument_specs.yml in ``specs``,
    merged in order into one spec; a variable several roles declare (vllm_state) keeps its first
    declaration (the roles declare it alike)."""
    options = {}
    for spec in specs:
        main = ((spec or {}).get("argument_specs") or {}).get("main") or {}
        for name, option in (main.get("options") or {}).items():
            options.setdefault(name, option)
    return options


def accepted(option):
    """What an option accepts, in words, from its spec: its choices, else its type."""
    if option.get("choices"):
        return ", ".join(str(choice) for choice in option["choices"])
    kind = option.get("type", "str")
    text = _ACCEPTED.get(kind, kind)
    if kind == "list" and option.get("elements"):
        text += " of " + _ELEMENTS.get(option["elements"], option["elements"])
    return text


def _shown(value):
    return repr(value) if isinstance(value, str) else str(value)


def _option_named(message, options):
    """The option an error message of Ansible's argument spec check is about (the longest name
    it holds as a word), or None."""
    found = [name for name in options
             if re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(name), message)]
    return max(found, key=len) if found else None


def spec_errors(messages, options, values):
    """``messages`` (validate_argument_spec's ``argument_errors``) as the preflight's error lines:
    ``<variable> is <value>; accepted: <choices or type>``, the value as ``values`` holds it; a
    ``no_log`` option's value is never shown. A message about no option is kept, on one line.
    The lines follow the order of the options in the spec (the roles' order), not Ansible's."""
    order = dict((name, index) for index, name in enumerate(options))
    named = [(_option_named(str(message), options), str(message)) for message in messages or []]
    errors = []
    for name, message in sorted(named, key=lambda pair: order.get(pair[0], len(order))):
        if name is None:
            line = " ".join(message.split())
        elif options[name].get("no_log"):
            line = "%s is not %s (the value is not shown); accepted: %s" % (
                name, accepted(options[name]), accepted(options[name]))
        else:
            line = "%s is %s; accepted: %s" % (name, _shown(values.get(name)), accepted(options[name]))
        if line not in errors:
            errors.append(line)
    return errors


def _variable(error):
    """The variable an error line names first (``vllm_x is ...``, ``vllm_x.key ...``)."""
    match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", error)
    return match.group(0) if match else None


def merge_errors(type_errors, errors):
    """The spec's type and choice errors first, then ``errors`` (the checks of meaning); a type
    error of a variable ``errors`` names already is left out (that check words it closer)."""
    named = set(_variable(e) for e in errors)
    return [e for e in type_errors if _variable(e) not in named] + list(errors)


def check(options, values):
    """The type and choice errors of ``values`` against ``options``, worded as spec_errors does,
    from Ansible's own check (ArgumentSpecValidator, which validate_argument_spec runs): for
    callers without a play (scripts/plan --render). Empty where Ansible is not installed."""
    try:
        from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
    except ImportError:  # pragma: no cover - plain Python without Ansible
        return []
    provided = dict((name, value) for name, value in values.items() if name in options)
    result = ArgumentSpecValidator(options).validate(provided)
    return spec_errors(result.error_messages, options, values)
