# -*- coding: utf-8 -*-
"""Input checks that run before anything on a host changes.

Each check returns error strings that name the variable, the value given and what is accepted,
so a user can fix inventory without reading code. Pure standard library.

Types and choices alone (a backend of auto, cpu or cuda; a bool) are the roles'
meta/argument_specs.yml's, checked in the preflight by validate_argument_spec and worded by
vllm_argspec; the checks here are those that need meaning: ranges, patterns, paths, values that
conflict, secrets never shown, the exposure of the server.
"""
from __future__ import absolute_import, division, print_function

import ipaddress
import math
import os
import re

from .vllm_firewall import check_allow as check_firewall_allow
from .vllm_hub import is_repo_id
from .vllm_wslconfig import NAMES as _WSL_SIZE_NAMES, size_problem, size_rule
from .vllm_wheelhouse import validate as _validate_wheelhouse
from .vllm_common import read_yaml
from . import vllm_options as _options

__metaclass__ = type

MODEL_SOURCE_BUILTIN = "builtin"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_SERVED_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:-]{0,127}$")
# Options the service renders itself (vllm_options.RESERVED_OPTIONS, dash names): setting them
# in vllm_service_options, in any spelling, is refused.
RESERVED_OPTIONS = _options.RESERVED_OPTIONS
# Variables the service writes to the root-only secrets file; vllm_service_env would put them in
# the group-readable environment file, or set an API key the role does not know about.
RESERVED_ENV = {
    "VLLM_API_KEY": "vllm_service_api_key",
    "HF_TOKEN": "vllm_service_hf_token",
    "HUGGING_FACE_HUB_TOKEN": "vllm_service_hf_token",
}
SERVED_NAME_ACCEPTED = ("empty (derived from the model) or a name of ASCII letters, digits and "
                        ". _ / : - that starts with a letter or digit (at most 128)")

def _fmt(value):
    return repr(value) if isinstance(value, str) else str(value)


def check_port(name, value):
    if isinstance(value, bool):
        return ["%s is %s; accepted: an integer from 1 to 65535" % (name, _fmt(value))]
    try:
        port = int(str(value), 10)
    except (TypeError, ValueError):
        return ["%s is %s; accepted: an integer from 1 to 65535" % (name, _fmt(value))]
    if not 1 <= port <= 65535:
        # the number as read (an extra var arrives as the string '70000')
        return ["%s is %d; accepted: an integer from 1 to 65535" % (name, port)]
    return []


def check_absolute_path(name, value):
    if not isinstance(value, str) or not value.startswith("/"):
        return ["%s is %s; accepted: an absolute path" % (name, _fmt(value))]
    why = _options.env_value_problem(value)
    if why:
        return ["%s is %r, which %s; accepted: an absolute path without control or line-break "
                "characters" % (name, value, why)]
    return []


# A path the systemd unit and the launcher's command line carry as they are (ExecStart= is the
# argv joined by spaces; "%" starts a systemd specifier, quotes and backslashes are unit syntax).
_UNIT_PATH = re.compile(r"/[A-Za-z0-9._+@,=/-]*")


def check_unit_path(name, value):
    if not isinstance(value, str) or not _UNIT_PATH.fullmatch(value):
        return ["%s is %r; accepted: an absolute path of letters, digits and . _ + @ , = - / "
                "(no spaces, quotes, %% or control characters: it is written into the systemd "
                "unit)" % (name, value)]
    return []


def check_model_source(name, value, exists):
    """``builtin``, a Hub id ``org/name``, or an absolute path that exists on the host (``exists``
    comes from a stat)."""
    if value == MODEL_SOURCE_BUILTIN or is_repo_id(value):
        return []
    if isinstance(value, str) and value.startswith("/") and _options.env_value_problem(value):
        # the folder's name becomes the served name (options file, unit, /v1/models)
        return ["%s is %r, which %s; accepted: 'builtin', a Hub id or an absolute path without "
                "control or line-break characters" % (name, value, _options.env_value_problem(value))]
    if not isinstance(value, str) or not value.startswith("/"):
        return ["%s is %s; accepted: 'builtin' (a tiny test model made on the host), a Hugging Face "
                "Hub id (org/name, e.g. Qwen/Qwen3-0.6B) or the absolute path of a model folder on "
                "the host" % (name, _fmt(value))]
    if exists is False:
        return ["%s is %s, which does not exist on the host; accepted: 'builtin', a Hugging Face "
                "Hub id (org/name, e.g. Qwen/Qwen3-0.6B) or the absolute path of an existing model "
                "folder (with config.json)" % (name, _fmt(value))]
    if exists == "not_a_dir":
        return ["%s is %s, which is not a folder; accepted: a model folder holding config.json"
                % (name, _fmt(value))]
    if exists == "no_config":
        return ["%s is %s, which holds no config.json; accepted: a Hugging Face model folder "
                "(config.json, tokenizer and weights)" % (name, _fmt(value))]
    return []


_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$")
_ENDPOINT = re.compile(r"^https?://[A-Za-z0-9.\-\[\]:]+(/[^\s]*)?$")


def check_revision(name, value):
    """A Hub branch, tag or commit (no spaces, no '..')."""
    if not isinstance(value, str) or not _REVISION.fullmatch(value) or ".." in value:
        return ["%s is %s; accepted: a branch, tag or commit of the Hub repository (e.g. main, v1.0 "
                "or a 40-hex commit)" % (name, _fmt(value))]
    return []


def check_endpoint(name, value):
    """Empty (huggingface_hub's default) or an http(s) URL of the Hub or a mirror."""
    if value in ("", None):
        return []
    if not isinstance(value, str) or not _ENDPOINT.fullmatch(value):
        return ["%s is %s; accepted: empty (the Hugging Face Hub) or the http(s) URL of a Hub mirror, "
                "e.g. https://hf-mirror.example.internal" % (name, _fmt(value))]
    return []


def check_env(name, value):
    if not isinstance(value, dict):
        return ["%s is %s; accepted: a mapping of environment variable names to values"
                % (name, _fmt(value))]
    errors = []
    for key in sorted(value, key=repr):
        if not isinstance(key, str) or not _ENV_NAME.fullmatch(key):
            errors.append("%s has the key %r; accepted: names of letters, digits and _ that do "
                          "not start with a digit" % (name, key))
            continue
        if key in RESERVED_ENV:
            errors.append("%s sets %s; set %s instead (kept in the root-only secrets file)"
                          % (name, key, RESERVED_ENV[key]))
            continue
        text = "" if value[key] is None else str(value[key])
        why = _options.env_value_problem(text)
        if why:
            errors.append("%s.%s is %s, which %s; accepted: %s"
                          % (name, key, _options.env_value_shown(key, text), why,
                             _options.ENV_VALUE_ACCEPTED))
    return errors


def check_options(name, value):
    """vllm_service_options: plain option names, none of the reserved ones in any spelling or
    abbreviation, and no value vLLM's --config loader would turn into another option."""
    if not isinstance(value, dict):
        return ["%s is %s; accepted: a mapping of vLLM option names (underscores, e.g. "
                "max_model_len) to values" % (name, _fmt(value))]
    problems = _options.option_problems(name, value)
    # one error per key: a value that is refused above (an argv injection) is not range-checked
    checked = dict((k, v) for k, v in value.items() if not _options.option_problems(name, {k: v}))
    return problems + option_value_problems(name, checked)


# data/vllm_option_constraints.yml: the bounds vLLM's own config fields carry, by field name.
OPTION_CONSTRAINTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data", "vllm_option_constraints.yml")
_CONSTRAINTS_CACHE = {}
_HUMAN_INT = re.compile(r"(\d+)([kKmMgGtT]?)|(\d+\.\d+)([kmgt])")
_DIGITS = re.compile(r"\d+")
_FLOAT_TEXT = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TYPE_ACCEPTED = {
    "int": "a whole number",
    "human_int": "a whole number (or text such as 8k = 8000, 8K = 8192)",
    "float": "a number",
}


def load_option_constraints(path=None):
    """``{field_name: entry}`` from data/vllm_option_constraints.yml (read once per path)."""
    path = path or OPTION_CONSTRAINTS
    if path not in _CONSTRAINTS_CACHE:
        data = read_yaml(path)
        if not isinstance(data, dict) or not isinstance(data.get("options"), dict):
            raise ValueError("%s is not an option constraints table (no 'options' mapping)" % path)
        for key, entry in data["options"].items():
            if not isinstance(entry, dict) or entry.get("type") not in _TYPE_ACCEPTED:
                raise ValueError("%s: %r needs a type of %s" % (path, key, ", ".join(sorted(_TYPE_ACCEPTED))))
        _CONSTRAINTS_CACHE[path] = data["options"]
    return _CONSTRAINTS_CACHE[path]


def _option_number(kind, value):
    """The number vLLM's parser would read from ``value`` for an option of ``kind``, or None
    when it would refuse it (bool, 2.5 for a whole number, nan, text that is no number)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if kind == "float" and math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if kind == "float":
        return float(text) if _FLOAT_TEXT.fullmatch(text) else None
    if kind == "int":
        return int(text) if _DIGITS.fullmatch(text) else None
    match = _HUMAN_INT.fullmatch(text)
    if not match:
        return None
    if match.group(3):  # decimal with a decimal multiplier: 25.6k
        return int(float(match.group(3)) * 1000 ** ("kmgt".index(match.group(4)) + 1))
    number, suffix = int(match.group(1)), match.group(2)
    if suffix:
        number *= (1024 if suffix.isupper() else 1000) ** ("kmgt".index(suffix.lower()) + 1)
    return number


def _range_text(entry):
    parts = []
    for bound, words in (("gt", "greater than %s"), ("ge", "at least %s"), ("lt", "below %s"),
                         ("le", "at most %s")):
        if bound in entry:
            parts.append(words % entry[bound])
    text = _TYPE_ACCEPTED[entry["type"]] + (" " + " and ".join(parts) if parts else "")
    if entry.get("also"):
        text += ", or " + " or ".join(str(v) for v in entry["also"])
    return text


def option_value_problems(name, options, constraints=None):
    """Values of ``options`` outside what vLLM's config field accepts (the constraints table):
    one sentence each, naming the option, the value and what is accepted."""
    if not isinstance(options, dict):
        return []
    table = load_option_constraints() if constraints is None else constraints
    problems = []
    for key in sorted(options, key=repr):
        cli = _options.option_cli_name(key)
        entry = table.get(cli.replace("-", "_")) if cli else None
        if not entry:
            continue
        value = options[key]
        also = entry.get("also") or []
        if (isinstance(value, str) and value.strip().lower() in [str(a).lower() for a in also]) or \
                (not isinstance(value, bool) and isinstance(value, int) and value in also):
            continue
        number = _option_number(entry["type"], value)
        ok = number is not None and not (
            ("gt" in entry and not number > entry["gt"]) or ("ge" in entry and not number >= entry["ge"])
            or ("lt" in entry and not number < entry["lt"]) or ("le" in entry and not number <= entry["le"]))
        if not ok:
            problems.append("%s.%s is %s; accepted: %s (vLLM's %s)" % (
                name, key, _fmt(value), _range_text(entry), entry.get("source", "config").split(":")[0]))
    return problems


_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
HOST_ACCEPTED = ("an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name of letters, digits, "
                 "- and . (no spaces, brackets, %, control characters or leading -)")


def check_host(name, value):
    """The address the server binds: an IPv4 or IPv6 address (bare, as uvicorn takes it) or a
    DNS host name (RFC 1123 labels; a name whose last label is all digits is a bad IPv4)."""
    if isinstance(value, str) and value and value == value.strip() and "%" not in value:
        try:
            ipaddress.ip_address(value)
            return []
        except ValueError:
            pass
        labels = value[:-1].split(".") if value.endswith(".") else value.split(".")
        if len(value) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in labels) \
                and not labels[-1].isdigit():
            return []
    return ["%s is %s; accepted: %s" % (name, _fmt(value), HOST_ACCEPTED)]


def is_loopback(host):
    """The bind address keeps the server on this host: 127.0.0.0/8, ::1 (also IPv4-mapped) or
    the name localhost."""
    if not isinstance(host, str):
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


# The words Ansible reads as true (ansible.module_utils.parsing.convert_bool): the bool type of
# the argument spec (vllm_argspec) accepts what Ansible reads, so the exposure rule reads it so too.
_TRUE_WORDS = ("y", "yes", "on", "1", "true", "t")


def _truthy(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value == 1
    return isinstance(value, str) and value.strip().lower() in _TRUE_WORDS


def check_exposure(host, api_key, allow_unauthenticated=False):
    """A server bound beyond loopback without an API key serves anyone who reaches the port:
    refused unless ``allow_unauthenticated`` says it is meant (a proxy that authenticates, a
    closed network)."""
    if is_loopback(host) or api_key or _truthy(allow_unauthenticated):
        return []
    return ["vllm_service_host is %s, which exposes the server beyond this host, and "
            "vllm_service_api_key is empty: anyone who reaches the port could use the model. Set "
            "vllm_service_api_key (keep it in Ansible Vault), bind to 127.0.0.1, or set "
            "vllm_service_allow_unauthenticated: true to serve without a key on purpose (e.g. "
            "behind a proxy that authenticates)" % _fmt(host)]


# PEM as vLLM's (uvicorn's, Python's ssl) --ssl-certfile and --ssl-keyfile read it.
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END \1-----")
CERT_ACCEPTED = ("PEM text: one or more -----BEGIN CERTIFICATE----- blocks (the server's "
                 "certificate first, then its intermediates), nothing else")
KEY_ACCEPTED = ("PEM text of one unencrypted private key (-----BEGIN PRIVATE KEY-----, BEGIN RSA "
                "PRIVATE KEY or BEGIN EC PRIVATE KEY), nothing else")
CA_ACCEPTED = ("empty (the gate trusts vllm_service_tls_cert itself), PEM text of one or more "
               "-----BEGIN CERTIFICATE----- blocks, or the absolute path of a PEM CA bundle on "
               "the host (e.g. /etc/ssl/certs/ca-certificates.crt)")
_KEY_LABELS = ("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")


def _pem_labels(text):
    """The labels of ``text``'s PEM blocks when it holds only PEM blocks (whitespace between),
    else None."""
    if not isinstance(text, str):
        return None
    labels, rest = [], text
    for match in _PEM_BLOCK.finditer(text):
        labels.append(match.group(1))
    rest = _PEM_BLOCK.sub("", text)
    return labels if labels and not rest.strip() else None


def check_tls(cert, key, ca=""):
    """vllm_service_tls_cert, _key and _ca: both or neither of cert and key, each PEM of its
    kind; the key is never shown (not even its first characters), only what is wrong with it."""
    errors = []
    cert = "" if cert is None else cert
    key = "" if key is None else key
    ca = "" if ca is None else ca
    if bool(cert) != bool(key):
        errors.append("vllm_service_tls_cert is %s and vllm_service_tls_key is %s; accepted: both "
                      "(https) or neither (plain http)" % ("set" if cert else "empty",
                                                           "set" if key else "empty"))
    if cert:
        labels = _pem_labels(cert)
        if labels is None or any(label != "CERTIFICATE" for label in labels):
            found = ", ".join(sorted(set(labels or []))) or "no PEM block"
            errors.append("vllm_service_tls_cert holds %s; accepted: %s" % (found, CERT_ACCEPTED))
    if key:
        labels = _pem_labels(key)
        if labels == ["ENCRYPTED PRIVATE KEY"]:
            errors.append("vllm_service_tls_key is an encrypted private key (the value is not "
                          "shown); vLLM takes no passphrase: keep the key in Ansible Vault and give "
                          "it decrypted (openssl pkey -in key.pem); accepted: %s" % KEY_ACCEPTED)
        elif labels is None or len(labels) != 1 or labels[0] not in _KEY_LABELS:
            errors.append("vllm_service_tls_key is not a PEM private key (the value is not shown: "
                          "it holds %s); accepted: %s" % (
                              "%d PEM block(s)" % len(labels) if labels else "no PEM block",
                              KEY_ACCEPTED))
    if ca:
        if not cert and not key:
            errors.append("vllm_service_tls_ca is set, but vllm_service_tls_cert and "
                          "vllm_service_tls_key are empty; accepted: a CA only with them")
        if not isinstance(ca, str) or "-----BEGIN" in ca:
            labels = _pem_labels(ca)
            if labels is None or any(label != "CERTIFICATE" for label in labels):
                errors.append("vllm_service_tls_ca holds %s; accepted: %s" % (
                    ", ".join(sorted(set(labels or []))) or "no PEM block", CA_ACCEPTED))
        elif check_absolute_path("vllm_service_tls_ca", ca):
            errors.append("vllm_service_tls_ca is %r; accepted: %s" % (ca, CA_ACCEPTED))
    return errors


def exposure_warnings(host, api_key, tls):
    """What the summary warns about (not refusals): an API key sent in clear over the network."""
    if is_loopback(host) or not api_key or tls:
        return []
    return ["vllm_service_host is %s and the server speaks plain http: clients send the API key "
            "in clear text over the network. Set vllm_service_tls_cert and vllm_service_tls_key "
            "(keep the key in Ansible Vault), or put a TLS proxy in front" % _fmt(host)]


def check_secret(name, value):
    """An API key or token: written to the secrets file, so one line; never shown in the error."""
    if value is None or value == "":
        return []
    if not isinstance(value, str) or _options.env_value_problem(value):
        return ["%s holds a line break or another control character (the value is not shown); "
                "accepted: a single-line secret without control characters" % name]
    return []


def check_served_name(name, value):
    """A served or model name: it reaches the options file, the unit's description, /v1/models."""
    if value is None or value == "":
        return []
    if not isinstance(value, str) or not _SERVED_NAME.fullmatch(value):
        return ["%s is %r; accepted: %s" % (name, value, SERVED_NAME_ACCEPTED)]
    return []


def check_pattern(name, value, pattern, accepted):
    if not isinstance(value, str) or not pattern.fullmatch(value):
        return ["%s is %s; accepted: %s" % (name, _fmt(value), accepted)]
    return []


_SERIAL = re.compile(r"^(?:[1-9][0-9]*|(?:[1-9][0-9]?|100)%)$")


def check_pattern_serial(name, value):
    """Ansible's ``serial``: a batch size or a percentage (a list of them works too)."""
    items = value if isinstance(value, list) and value else [value]
    for item in items:
        text = str(item) if isinstance(item, (int, str)) and not isinstance(item, bool) else ""
        if not _SERIAL.fullmatch(text.strip()):
            return ["%s is %s; accepted: a batch size (1, 5), a percentage (\"25%%\") or a list of them"
                    % (name, _fmt(value))]
    return []


def check_int_range(low, high, unit=""):
    """A check for an integer in [low, high]; strings of digits count (extra vars are strings)."""
    def check(name, value):
        number = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().isdigit():
            number = int(value.strip())
        if number is None or not low <= number <= high:
            shown = number if number is not None else _fmt(value)
            return ["%s is %s; accepted: a whole number from %d to %d%s" % (name, shown, low, high, unit)]
        return []
    return check


# Key of ``values`` holding the inventory's host names (not a variable: context for the checks).
INVENTORY_HOSTS = "__inventory_hosts"


_FSTYPE = re.compile(r"^[A-Za-z0-9._-]{1,32}$")
_INI_NAME = re.compile(r"^[A-Za-z0-9_.-]+\.[A-Za-z0-9_-]+$")


def check_wsl_size(name, value, words=("", "auto")):
    """A WSL size (8GB, 512MB, 0) within the bounds vllm_wslconfig sets for that variable, or one of ``words``."""
    if isinstance(value, str) and value.strip().lower() in words:
        return []
    kind = dict((v, k) for k, v in _WSL_SIZE_NAMES.items()).get(name, "overhead")
    problem = size_problem(value, kind)
    if problem:
        accepted = " or ".join(['"%s"' % w if w else '""' for w in words] + ["a size such as 16GB or 512MB"])
        return ["%s is %s; accepted: %s - %s (this is %s)" % (name, _fmt(value), accepted, size_rule(kind), problem)]
    return []


def check_ini_settings(name, value):
    if not isinstance(value, dict):
        return ["%s is %s; accepted: a mapping of SECTION.KEY to a value, e.g. {wsl2.processors: 8}"
                % (name, _fmt(value))]
    return ["%s has the key %s; accepted: SECTION.KEY, e.g. wsl2.processors" % (name, _fmt(key))
            for key in value if not isinstance(key, str) or not _INI_NAME.fullmatch(key)]


def check_wsl_inputs(values):
    """The WSL variables: model relocation (vllm_model) and .wslconfig / wsl.conf (vllm_wsl)."""
    errors = []

    def fstypes(name, value):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and _FSTYPE.fullmatch(v)
                                                                 for v in value):
            return ["%s is %s; accepted: a non-empty list of filesystem types, e.g. [9p, drvfs, v9fs]"
                    % (name, _fmt(value))]
        return []

    def timeout(name, value):
        if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())) \
                or int(value) < 60:
            return ["%s is %s; accepted: seconds, at least 60" % (name, _fmt(value))]
        return []

    def profile(name, value):
        return [] if value == "" else check_absolute_path(name, value)

    checks = [
        ("vllm_model_windows_fstypes", fstypes),
        ("vllm_model_relocate_timeout", timeout),
        ("vllm_wsl_windows_profile", profile),
        ("vllm_wsl_memory", check_wsl_size),
        ("vllm_wsl_swap", check_wsl_size),
        ("vllm_wsl_windows_memory", lambda n, v: check_wsl_size(n, v, ("",))),
        ("vllm_wsl_runtime_overhead", lambda n, v: check_wsl_size(n, v, ())),
        ("vllm_wsl_wslconfig_settings", check_ini_settings),
        ("vllm_wsl_conf_settings", check_ini_settings),
    ]
    for name, check in checks:
        if name in values:
            errors.extend(check(name, values[name]))
    return errors


def validate_inputs(values, model_source_exists=None):
    """Validate the public inputs of the service and model roles (install/python: the planner)
    beyond their types and choices (the argument specs').

    ``values`` maps variable names to values; only those present are checked.
    """
    errors = []
    checks = [
        ("vllm_service_port", check_port),
        ("vllm_service_host", check_host),
        ("vllm_service_firewall_allow", check_firewall_allow),
        ("vllm_service_ready_timeout", check_int_range(
            1, 86400, " seconds (the readiness gate's wait; a large model's first load takes minutes)")),
        ("vllm_service_restart_sec", check_int_range(
            1, 3600, " seconds (the wait before a server that ended is started again)")),
        ("vllm_service_start_limit_burst", check_int_range(
            1, 1000, " (starts within vllm_service_start_limit_interval before giving up)")),
        ("vllm_service_start_limit_interval", check_int_range(
            1, 86400, " seconds (the window vllm_service_start_limit_burst counts in)")),
        ("vllm_install_timeout", check_int_range(60, 86400, " seconds (each uv run of the install)")),
        ("vllm_service_user", lambda n, v: check_pattern(
            n, v, _USER_NAME, "a system user name (lower case letters, digits, _ and -)")),
        ("vllm_service_served_name", check_served_name),
        ("vllm_model_name", check_served_name),
        ("vllm_service_options", check_options),
        ("vllm_service_env", check_env),
        ("vllm_service_api_key", check_secret),
        ("vllm_service_hf_token", check_secret),
        ("vllm_model_hf_token", check_secret),
        ("vllm_python_root", check_unit_path),
        ("vllm_service_config_dir", check_unit_path),
        ("vllm_service_state_dir", check_unit_path),
        ("vllm_service_log_dir", check_unit_path),
        ("vllm_service_group", lambda n, v: check_pattern(
            n, v, _USER_NAME, "a system group name (lower case letters, digits, _ and -)")),
        ("vllm_python_keep_releases", check_int_range(2, 100, " (2 or more keeps a release to roll back to)")),
        ("vllm_rollout_serial", check_pattern_serial),
        ("vllm_rollout_max_fail_percentage", check_int_range(0, 100, " (percent of a batch)")),
        ("vllm_rollout_drain_timeout", check_int_range(
            0, 3600, " seconds (a drained server's wait for its requests before the restart)")),
        ("vllm_model_store", check_absolute_path),
        ("vllm_model_revision", check_revision),
        ("vllm_model_hub_endpoint", check_endpoint),
    ]
    for name, check in checks:
        if name in values:
            errors.extend(check(name, values[name]))
    errors.extend(check_wsl_inputs(values))
    # exposure: judged only with a valid bind address and the API key given (a caller that
    # passes no key checks no exposure; the preflight passes both)
    if "vllm_service_host" in values and "vllm_service_api_key" in values \
            and not check_host("vllm_service_host", values["vllm_service_host"]):
        errors.extend(check_exposure(values["vllm_service_host"], values["vllm_service_api_key"],
                                     values.get("vllm_service_allow_unauthenticated", False)))
    if "vllm_service_tls_cert" in values or "vllm_service_tls_key" in values:
        errors.extend(check_tls(values.get("vllm_service_tls_cert"), values.get("vllm_service_tls_key"),
                                values.get("vllm_service_tls_ca")))
    if "vllm_service_tls_server_name" in values and values["vllm_service_tls_server_name"]:
        errors.extend(check_host("vllm_service_tls_server_name", values["vllm_service_tls_server_name"]))
    if "vllm_model_source" in values:
        errors.extend(check_model_source("vllm_model_source", values["vllm_model_source"],
                                         model_source_exists))
    # the wheelhouse variables; a mirror host must be in the inventory (INVENTORY_HOSTS)
    errors.extend(_validate_wheelhouse(values, values.get(INVENTORY_HOSTS)))
    return errors


# vLLM's engine passes tensors between processes through /dev/shm (~160 MiB for the smallest
# CPU server; containers get 64 MiB by default).
SHM_MIN_MIB = 256


def host_problems(host):
    """Problems with the host itself that would make any start fail, as sentences with the fix."""
    problems = []
    shm = (host.get("space") or {}).get("shm")
    if shm and shm.get("free_mib") is not None and shm["free_mib"] < SHM_MIN_MIB:
        problems.append(
            "/dev/shm has %d MiB free (of %d MiB); vLLM's engine needs at least %d MiB of shared "
            "memory. In a container start it with --shm-size=1g (or --ipc=host); on a host, "
            "remount /dev/shm larger." % (shm["free_mib"], shm.get("total_mib") or 0, SHM_MIN_MIB))
    wsl = host.get("wsl") or {}
    if wsl.get("is_wsl") and wsl.get("version") == 1:
        problems.append("this is WSL1, which has no GPU support and cannot run vLLM's engine: "
                        "convert the distro with `wsl --set-version <distro> 2` in Windows")
    return problems


def model_source_state(model_stat, config_stat):
    """What the model folder check found, as validate_inputs' ``model_source_exists`` reads it,
    from the ``stat`` results of the folder and of its config.json: ``None`` (not looked at),
    ``False`` (missing), ``"not_a_dir"``, ``"no_config"`` or ``True``."""
    stat = model_stat.get("stat") if isinstance(model_stat, dict) else None
    if stat is None:
        return None
    if not stat["exists"]:
        return False
    if not stat["isdir"]:
        return "not_a_dir"
    return True if config_stat["stat"]["exists"] else "no_config"
