"""Property tests of the emitters and validators the security review touched.

For any input the emitters either refuse it up front (ValueError) or write text that the
consumer's own parser reads back exactly:
- the options file (vllm_options.to_cli_yaml / options_file): PyYAML's safe_load, as vLLM's
  FlexibleArgumentParser.load_config_file reads it, and then that loader's turning of the mapping
  into argv items, which must hold no option the keys did not name;
- the environment files (vllm_options.to_env_file): systemd's EnvironmentFile= parser
  (``systemd_env_file`` below, written from systemd's documented rules and its env-file.c state
  machine) and the launcher's own parser (vllm_launcher.parse_env_file).
The validators that guard these inputs accept nothing the emitters would refuse.
"""
import json
import math
import re

import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import vllm_launcher
import vllm_options as o
import vllm_validate as v

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Characters that broke parsers before: line breaks of every kind, controls, quotes, YAML and
# env-file syntax, escapes, a lone surrogate, look-alikes.
NASTY = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
         "\x00", "\t", "\x7f", "\x9b", "\ufeff", "\u200b", "\ud800", "\U0001f600", '"', "'", "\\",
         "$", "`", "#", ";", "=", ": ", "- ", "--", "-", "--host", " ", "{", "}", "[", "]", ",",
         "&a", "*a", "!!python/object", "%", "@", "|", ">", "?", "<<", "\u0430", "export "]
text = st.lists(st.one_of(st.text(max_size=8), st.sampled_from(NASTY)), max_size=6).map("".join)


# --- systemd's EnvironmentFile= parser ---------------------------------------------------------
# systemd.exec(5), "EnvironmentFile=": lines of VAR=VALUE; empty lines and lines starting with
# ";" or "#" are ignored; a backslash before a newline continues the line; values may be quoted
# in single or double quotes (inside double quotes \" \\ \` \$ are escapes); leading and trailing
# whitespace of unquoted values is removed. The state machine is that of env-file.c
# (parse_env_file_internal): NEWLINE is "\n\r", WHITESPACE " \t\n\r", SHELL_NEED_ESCAPE "\"\\`$".
# Afterwards exec drops assignments whose name is not a valid variable name (env_name_is_valid)
# or whose value is not valid UTF-8; a later assignment of the same name wins.
NEWLINE = "\n\r"
WHITESPACE = " \t\n\r"
SHELL_NEED_ESCAPE = "\"\\`$"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def systemd_env_file(data):
    pairs = []
    state = "PRE_KEY"
    key, value = [], []
    key_ws = value_ws = None  # index where trailing whitespace starts, as systemd tracks it

    def push():
        k = "".join(key[:key_ws] if key_ws is not None else key)
        val = value[:value_ws] if (state == "VALUE" and value_ws is not None) else value
        pairs.append((k, "".join(val)))

    for c in data:
        if state == "PRE_KEY":
            if c in "#;":
                state = "COMMENT"
            elif c not in WHITESPACE:
                state, key, key_ws = "KEY", [c], None
        elif state == "KEY":
            if c in NEWLINE:
                state, key = "PRE_KEY", []
            elif c == "=":
                state, value, value_ws = "PRE_VALUE", [], None
            else:
                if c in WHITESPACE:
                    if key_ws is None:
                        key_ws = len(key)
                else:
                    key_ws = None
                key.append(c)
        elif state == "PRE_VALUE":
            if c in NEWLINE:
                push()
                state, key, value = "PRE_KEY", [], []
            elif c == "'":
                state = "SINGLE_QUOTE_VALUE"
            elif c == '"':
                state = "DOUBLE_QUOTE_VALUE"
            elif c == "\\":
                state = "VALUE_ESCAPE"
            elif c not in WHITESPACE:
                state, value_ws = "VALUE", None
                value.append(c)
        elif state == "VALUE":
            if c in NEWLINE:
                push()
                state, key, value = "PRE_KEY", [], []
            elif c == "\\":
                state, value_ws = "VALUE_ESCAPE", None
            else:
                if c in WHITESPACE:
                    if value_ws is None:
                        value_ws = len(value)
                else:
                    value_ws = None
                value.append(c)
        elif state == "VALUE_ESCAPE":
            state = "VALUE"
            if c not in NEWLINE:
                value.append(c)
        elif state == "SINGLE_QUOTE_VALUE":
            if c == "'":
                state = "PRE_VALUE"
            else:
                value.append(c)
        elif state == "DOUBLE_QUOTE_VALUE":
            if c == '"':
                state = "PRE_VALUE"
            elif c == "\\":
                state = "DOUBLE_QUOTE_VALUE_ESCAPE"
            else:
                value.append(c)
        elif state == "DOUBLE_QUOTE_VALUE_ESCAPE":
            state = "DOUBLE_QUOTE_VALUE"
            if c in SHELL_NEED_ESCAPE:
                value.append(c)
            elif c != "\n":
                value.extend(["\\", c])
        elif state == "COMMENT":
            if c == "\\":
                state = "COMMENT_ESCAPE"
            elif c in NEWLINE:
                state = "PRE_KEY"
        elif state == "COMMENT_ESCAPE":
            state = "COMMENT"
    if state in ("PRE_VALUE", "VALUE", "VALUE_ESCAPE", "SINGLE_QUOTE_VALUE",
                 "DOUBLE_QUOTE_VALUE", "DOUBLE_QUOTE_VALUE_ESCAPE"):
        push()
    env = {}
    for k, val in pairs:
        if ENV_NAME.fullmatch(k) and _utf8(val):
            env[k] = val
    return env


def _utf8(value):
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_the_systemd_model_follows_the_documented_rules():
    data = ('# c\n; c\nA=1\n  B = two words  \nC="x \\" \\\\ \\$ \\n"\nD=\'it\\s\'\nE=a\\\nb\n'
            'F="multi\nline"\n1BAD=x\nG=x\\ y\nH\nA=last')
    assert systemd_env_file(data) == {"A": "last", "B": "two words", "C": 'x " \\ $ \\n',
                                      "D": "it\\s", "E": "ab", "F": "multi\nline", "G": "x y"}


# --- environment files -------------------------------------------------------------------------
env_keys = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True), text)


@SETTINGS
@given(st.dictionaries(env_keys, text, max_size=5))
@example({"A": "x\u2028B=1"})
@example({"A\n": "x"})
@example({"A": "x\rB=1"})
def test_env_file_is_refused_or_read_back_exactly_by_systemd_and_the_launcher(env):
    try:
        rendered = o.to_env_file(env)
    except ValueError:
        return
    assert systemd_env_file(rendered) == env
    assert vllm_launcher.parse_env_file(rendered) == env


@SETTINGS
@given(st.dictionaries(env_keys, text, max_size=5))
def test_env_validator_accepts_only_what_the_emitter_writes_back(env):
    if v.validate_inputs({"vllm_service_env": env}):
        return
    rendered = o.to_env_file(env)  # must not refuse what the preflight let through
    assert systemd_env_file(rendered) == env
    assert vllm_launcher.parse_env_file(rendered) == env


@SETTINGS
@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
       st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20))
def test_printable_env_values_are_not_refused(key, value):
    rendered = o.to_env_file({key: value})
    assert systemd_env_file(rendered) == {key: value}


# --- the options file, as vLLM reads it ----------------------------------------------------------
def vllm_config_argv(config):
    """vLLM's FlexibleArgumentParser.load_config_file: the YAML mapping as argv items."""
    argv = []
    for key, value in config.items():
        if isinstance(value, bool):
            argv.append("--" + key if value else "--no-" + key)
        elif isinstance(value, list):
            if value:
                argv.append("--" + key)
                argv.extend(str(item) for item in value)
        elif isinstance(value, dict):
            argv.extend(["--" + key, json.dumps(value)])
        else:
            argv.extend(["--" + key, str(value)])
    return argv


def _is_number(item):
    return re.fullmatch(r"-?\d+(\.\d*)?([eE][-+]?\d+)?", item) is not None


def options_flags(argv):
    """The argv items argparse would take as options (it takes "-1" as a number here)."""
    return [item for item in argv if item.startswith("-") and not _is_number(item)]


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), text)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)), max_leaves=12)
option_keys = st.one_of(
    st.from_regex(r"(--)?[a-z][a-z0-9]{0,6}([-_][a-z0-9]{1,6}){0,2}", fullmatch=True),
    st.sampled_from(["host", "port", "model", "api_key", "api-key", "--served-model-name",
                     "config", "uds", "ho", "serv", "api", "host ", "API-KEY", "h\u043est",
                     "host=1", "host.x", "seed", "max_model_len", "max-model-len"]),
    text)


@SETTINGS
@given(st.dictionaries(option_keys, values, max_size=5))
@example({"seed": [0, "--host", "0.0.0.0"]})
@example({"served_model_name": "x\nhost: 0.0.0.0"})
@example({"x": 1e-05, "y": {"<<": 1}})
@example({"on": 1, "null": 2, "yes": True, "no": [1], "off": "x", "true": 1, "false": 0})
def test_options_yaml_is_refused_or_read_back_exactly(options):
    try:
        rendered = o.to_cli_yaml(options)
    except ValueError:
        return
    loaded = yaml.safe_load(rendered)
    expected = dict((o.option_cli_name(k), val) for k, val in options.items() if val is not None)
    assert loaded == expected or (not expected and loaded is None)
    # every option vLLM sees is one the keys named: no value became a flag
    flags = options_flags(vllm_config_argv(loaded or {}))
    named = set()
    for key, val in expected.items():
        named.add("--" + key if val is not False else "--no-" + key)
    assert set(flags) <= named


@SETTINGS
@given(st.dictionaries(option_keys, values, max_size=5))
@example({"seed": [0, "--host", "0.0.0.0"]})
@example({"host ": "0.0.0.0"})
def test_accepted_user_options_cannot_reach_a_reserved_option(options):
    if v.validate_inputs({"vllm_service_options": options}):
        return
    for key in options:
        cli = o.option_cli_name(key)
        assert cli is not None and re.fullmatch(r"[a-z][a-z0-9-]*", cli)
        for reserved in o.RESERVED_OPTIONS:  # argparse would expand an abbreviation
            assert not reserved.startswith(cli), (key, reserved)
    try:
        rendered = o.to_cli_yaml(options)
    except ValueError as err:  # only for what YAML cannot carry, never an injection
        assert "finite" in str(err) or "not a string" in str(err) or "not a " in str(err)
        return
    argv = vllm_config_argv(yaml.safe_load(rendered) or {})
    for flag in options_flags(argv):
        name = flag[2:]
        if name.startswith("no-"):
            name = name[3:]
        assert name in set(o.option_cli_name(k) for k in options), flag
        assert name not in o.RESERVED_OPTIONS


@SETTINGS
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), text, max_size=4),
       text, text)
@example({"port": "x\nhost: 0.0.0.0"}, "evil\u2028host: 1", "/m\x85port: 2")
def test_options_file_comments_and_names_cannot_add_keys(reasons, served_name, model_path):
    options = {"served_model_name": served_name, "port": 8000}
    try:
        rendered = o.options_file(options, reasons, model_path, served_name)
    except ValueError as err:  # a value vLLM would take for an option
        assert served_name.startswith("-") or model_path.startswith("-"), err
        return
    assert yaml.safe_load(rendered) == {"model": model_path, "port": 8000,
                                        "served-model-name": served_name}
    assert rendered.isascii()
    for line in rendered.split("\n")[:-1]:
        assert line.startswith("#") or re.match(r"[a-z][a-z0-9-]*: ", line), line


@SETTINGS
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
                       st.one_of(st.integers(), st.booleans(),
                                 st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e)),
                                 st.lists(st.integers(), max_size=3)), max_size=5))
def test_ordinary_options_render_as_json_did_before(options):
    """Byte-identical with the former emitter (json.dumps per value) for ordinary values."""
    assume(not o.option_problems("options", options, reserved_ok=True))
    assume(not set(options) & o._YAML_WORDS)  # the former emitter wrote `on:`, read as True
    before = "".join("%s: %s\n" % (k.replace("_", "-"), json.dumps(options[k], sort_keys=True))
                     for k in sorted(options))
    assert o.to_cli_yaml(options) == (before or "\n")


# --- names ---------------------------------------------------------------------------------------
@SETTINGS
@given(text)
@example("tiny\n")
@example("tiny\u2028host: 1")
def test_accepted_names_are_plain_ascii_and_render_on_one_line(name):
    if v.validate_inputs({"vllm_service_served_name": name, "vllm_model_name": name}):
        return
    assert name == "" or (name.isascii() and name.isprintable() and not name.startswith("-"))
    assert "\n" not in name and "\r" not in name
    rendered = o.to_cli_yaml({"served_model_name": name}) if name else None
    if rendered:
        assert yaml.safe_load(rendered) == {"served-model-name": name}


def test_float_text_helper_matches_pyyaml():
    for number in (1e-05, 1e16, 123.0, -2.5e-300, 5e-324):
        assert math.isclose(yaml.safe_load(o.to_cli_yaml({"x": number}))["x"], number)
