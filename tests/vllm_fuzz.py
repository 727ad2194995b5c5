"""Generated bad, hostile and awkward-but-legal inputs for the real site.yml.

Shared by tests/integration/test_fuzz_inputs.py (every input, check mode, on this machine) and
molecule/shared/hostile_runs.py (ten of them in real runs against a served container). A fixed
seed (SEED) makes them reproducible; change it to explore others.
"""
import os
import random
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEED = 20261201
# characters that end a line, start a comment or a mapping, quote, or look like an option
HOSTILE = ["\n", "\r", "\u2028", "\u2029", "\x85", "\x1b", "\x7f", "\t", "'", '"', "--", "#", ": ",
           " ", "=", "\\", "%", "$(id)", "`id`", ";", ",", "[", "]"]
CONTROL = ["\n", "\r", "\u2028", "\u2029", "\x85", "\x1b", "\x7f", "\x00", "\x0b"]
# an option name vLLM's parser reads as one plain option (independent of the code under test)
PLAIN_OPTION = re.compile(r"(?:--)?[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
RESERVED = {"model": ["model", "--model", "MODEL", "mod"],
            "served-model-name": ["served_model_name", "served-model-name", "--served_model_name",
                                  "served", "--serv"],
            "host": ["host", "--host", "ho", "Host"],
            "port": ["port", "--port", "po"],
            "uds": ["uds", "--uds"],
            "api-key": ["api_key", "api-key", "--api-key", "api", "--api_k"],
            "config": ["config", "--config", "conf"]}


def fmt(value):
    return repr(value) if isinstance(value, str) else str(value)


def insert(rng, base, fragment):
    at = rng.randint(1, len(base) - 1)
    return base[:at] + fragment + base[at:]


def option_cases(rng, table):
    """(key, value, needle) for vllm_service_options."""
    cases = []
    # hostile key names
    for fragment in HOSTILE:
        key = insert(rng, rng.choice(["max_model_len", "enforce_eager", "dtype", "seed"]), fragment)
        if not PLAIN_OPTION.fullmatch(key):
            cases.append((key, 1, "vllm_service_options has the key %r" % key))
    # the reserved options, in every spelling and as abbreviations
    for reserved, spellings in RESERVED.items():
        for key in spellings:
            needle = ("vllm_service_options sets %r (vLLM reads it as --%s)" % (key, reserved)
                      if PLAIN_OPTION.fullmatch(key) else "vllm_service_options has the key %r" % key)
            cases.append((key, "0.0.0.0", needle))
    # values vLLM's --config loader would turn into another option
    for key, value, path, shown in (("chat_template", "--host=0.0.0.0", "chat_template", "--host=0.0.0.0"),
                                    ("allowed_origins", ["x", "--port", "1"], "allowed_origins[1]", "--port"),
                                    ("override_generation_config", {"t": "-v"}, "override_generation_config.t",
                                     "-v")):
        cases.append((key, value, "vllm_service_options.%s is %r" % (path, shown)))
    # out of range, by vLLM's own bounds (data/vllm_option_constraints.yml), and wrong types
    for key, entry in sorted(table.items()):
        bad = []
        if "gt" in entry:
            bad.append(entry["gt"] - (rng.randint(0, 50) if entry["type"] != "float" else rng.choice([0, 0.5, 3])))
        if "ge" in entry:
            bad.append(entry["ge"] - rng.randint(1, 50))
        if "le" in entry:
            bad.append(entry["le"] + rng.choice([0.001, 1, 6]))
        bad.append(rng.choice([True, False]))
        if entry["type"] != "float":
            bad.append(rng.choice([2.5, "12abc", "1.5K"]))
        value = rng.choice([b for b in bad if b not in (entry.get("also") or [])])
        spelled = rng.choice([key, key.replace("_", "-"), "--" + key])
        cases.append((spelled, value, "vllm_service_options.%s is %s; accepted:" % (spelled, fmt(value))))
    return cases


def env_cases(rng):
    """(key, value, needle) for vllm_service_env."""
    cases = []
    for fragment in rng.sample(HOSTILE, 8) + ["9"]:
        key = "9LEADING_DIGIT" if fragment == "9" else insert(rng, "MY_SETTING", fragment)
        cases.append((key, "1", "vllm_service_env has the key %r" % key))
    for key in ("VLLM_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        cases.append((key, "k", "vllm_service_env sets %s; set " % key))
    for index, char in enumerate(CONTROL):
        key = "MY_VALUE_%d" % index
        cases.append((key, "a" + char + "b", "vllm_service_env.%s is %r, which holds" % (key, "a" + char + "b")))
    return cases


def scalar_cases(rng):
    """{variable: [(value, needle), ...]}; secrets' needles never hold the value."""
    def plain(name, values):
        return [(v, "%s is %s; accepted" % (name, fmt(v))) for v in values]

    def secret(name):
        return [("s3cr3t" + c + "tail", "%s holds a line break or another control character "
                 "(the value is not shown)" % name) for c in rng.sample(CONTROL, 3)]

    names = ["tiny" + f + "x" for f in rng.sample(HOSTILE, 5)]
    return {
        "vllm_service_host": plain("vllm_service_host", rng.sample(
            ["127.0.0.1\n", "127.0.0.1 ", "[::1]", "999.1.1.1", "1.2.3.4.5", "-h", "--port=1", "a..b",
             "host name", "h#x", "h:1", "", "fe80::1%eth0", "127.0.0.1\u2028", "0.0.0.0;id"], 8)),
        "vllm_service_port": plain("vllm_service_port", [0, 65536, -1, "80a", True, 3.5]),
        "vllm_service_ready_timeout": plain("vllm_service_ready_timeout", [-1, 0, 86401, "fast", True]),
        "vllm_install_timeout": plain("vllm_install_timeout", [0, 59, "1h"]),
        "vllm_service_served_name": plain("vllm_service_served_name", names),
        "vllm_model_name": plain("vllm_model_name", ["--model", "a b", "x\u2028y"]),
        "vllm_service_api_key": secret("vllm_service_api_key"),
        "vllm_service_hf_token": secret("vllm_service_hf_token"),
        "vllm_model_hf_token": secret("vllm_model_hf_token"),
        "vllm_service_user": plain("vllm_service_user", ["root\n", "Vllm", "a b", "-x"]),
        "vllm_python_keep_releases": plain("vllm_python_keep_releases", [1, 0, "x", True]),
        # vllm_rollout_* are play keywords: the controller play refuses them before any other
        # check runs, so they are tested on their own below, not in these batches
        "vllm_service_manager": plain("vllm_service_manager", ["upstart", "systemd\n"]),
        "vllm_model_relocate_timeout": plain("vllm_model_relocate_timeout", [59, -1]),
    }


def batches(seed):
    """Runs of inputs: each run has at most one value per plain variable and a share of the
    option and environment cases; every case keeps its own needle."""
    rng = random.Random(seed)
    with open(os.path.join(ROOT, "data", "vllm_option_constraints.yml")) as handle:
        table = yaml.safe_load(handle)["options"]
    options, env, scalars = option_cases(rng, table), env_cases(rng), scalar_cases(rng)
    count = max(len(v) for v in scalars.values())
    runs = [{"extra": {"vllm_service_options": {}, "vllm_service_env": {}}, "cases": []}
            for _ in range(count)]
    for index, (key, value, needle) in enumerate(options):
        run = runs[index % count]
        assert key not in run["extra"]["vllm_service_options"], key
        run["extra"]["vllm_service_options"][key] = value
        run["cases"].append(("vllm_service_options", key, needle, None))
    for index, (key, value, needle) in enumerate(env):
        run = runs[index % count]
        run["extra"]["vllm_service_env"][key] = value
        run["cases"].append(("vllm_service_env", key, needle, None))
    for name, values in sorted(scalars.items()):
        for index, (value, needle) in enumerate(values):
            runs[index]["extra"][name] = value
            secret = value if name.endswith(("_api_key", "_token")) else None
            runs[index]["cases"].append((name, value, needle, secret))
    return runs


# Legal but awkward: must reach the service role and render exactly what was given.
AWKWARD = ["#", ": ", "'", '"', "\\", "\u00e9", "\u4e2d", " ", "=", ",", "--", "$HOME", "`x`", "!"]


def legal_inputs(seed):
    rng = random.Random(seed + 1)

    def awkward_text():
        parts = rng.sample(AWKWARD, 6)
        return "v" + "".join(parts) + "z"

    options = {"chat_template_content_format": awkward_text(), "max-num-seqs": 3,
               "--enforce-eager": True, "generation_config": awkward_text(),
               "limit_mm_per_prompt": {"image": 2}, "gpu_memory_utilization": 0.5,
               "max_model_len": "1K"}
    env = {"MY_NOTE": awkward_text(), "MY_OTHER": awkward_text(), "MY_EMPTY": ""}
    return {"vllm_service_options": options, "vllm_service_env": env,
            "vllm_service_served_name": "org/Model-1.5:q4", "vllm_service_host": "0.0.0.0",
            "vllm_service_port": 8123, "vllm_service_api_key": "k'y\"#: " + awkward_text()}


def single_cases(seed):
    """Every generated bad input on its own: dicts with the category, the variable, the extra
    vars of a run that carries only this input, the needle its error line must hold and the
    secret that must never show (or None)."""
    cases = []
    for run in batches(seed):
        for variable, key, needle, secret in run["cases"]:
            if variable in ("vllm_service_options", "vllm_service_env"):
                value = run["extra"][variable][key]
                extra = {variable: {key: value}}
                if variable == "vllm_service_env":
                    category = ("env_reserved" if " sets " in needle else
                                "env_value" if ", which holds" in needle else "env_key")
                elif " sets " in needle:
                    category = "option_reserved"
                elif needle.startswith("vllm_service_options has the key"):
                    category = "option_key"
                elif "; accepted:" in needle:
                    category = "option_range"
                else:
                    category = "option_argv"
            else:
                extra = {variable: key}
                category = variable
            cases.append({"category": category, "variable": variable, "extra": extra,
                          "needle": needle, "secret": secret})
    return cases


# the categories of bad input, one real run each (molecule/shared/hostile_runs.py)
REAL_CATEGORIES = ("option_reserved", "option_argv", "option_key", "option_range", "env_key",
                   "env_value", "vllm_service_host", "vllm_service_served_name",
                   "vllm_service_api_key")


def real_run_cases(seed):
    """One generated bad input per category of REAL_CATEGORIES, drawn with the seed."""
    rng = random.Random(seed + 2)
    cases = single_cases(seed)
    return [rng.choice([c for c in cases if c["category"] == category])
            for category in REAL_CATEGORIES]


def served_inputs(seed):
    """Legal but awkward inputs a real CPU server must start with, on loopback: environment
    values, an API key and a chat template (vLLM takes a Jinja template inline) full of quotes,
    '#', ': ', backslashes, '$', backticks and non-ASCII; the files must read back exactly."""
    rng = random.Random(seed + 3)

    def awkward_text():
        return "v" + "".join(rng.sample(AWKWARD, 6)) + "z"

    template = ("{% for m in messages %}{{ m['content'] }}{% endfor %}" + awkward_text()
                + " #: 'q' \"d\" \\n")
    return {"vllm_service_env": {"MY_NOTE": awkward_text(), "MY_OTHER": awkward_text(), "MY_EMPTY": ""},
            "vllm_service_api_key": "k'y\"#: " + awkward_text(),
            "vllm_service_options": {"chat_template": template}}
