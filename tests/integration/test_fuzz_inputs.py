"""Generated bad and hostile inputs through the real site.yml, in check mode with --diff.

A fixed seed (SEED) makes the inputs reproducible; change it to explore others. Each bad input
must be refused by the preflight: the run exits non-zero, one error line names the variable (and
the key or value as repr shows it; a secret's value never), and nothing is created on the host
(throwaway paths, as in test_bad_input.py). The preflight reports every problem at once, one line
each, so the bad inputs are batched: a run carries at most one value per plain variable and a
share of the hostile option and environment keys, and every input's own line must be there.
Legal but awkward inputs (quotes, '#', ': ', non-ASCII, dashed option names) must render exactly
what the user meant: the options file and the environment file of the diff read back to the
values given.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from vllm_testlib import ROOT

sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
from vllm_launcher import parse_env_file  # noqa: E402  (the reader the launcher uses)

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")

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


def run_site(tmp_path, extra):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    throwaway = dict((name, str(tmp_path / name)) for name in (
        "vllm_python_root", "vllm_model_store", "vllm_service_config_dir", "vllm_service_state_dir",
        "vllm_service_log_dir"))
    extra_vars = dict(throwaway, vllm_install_backend="cpu",
                      vllm_report_path=str(tmp_path / "report" / "report.json"), **extra)
    vars_file = tmp_path / "extra.json"
    vars_file.write_text(json.dumps(extra_vars))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    proc = subprocess.run(
        [PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"), "--check", "--diff",
         "-e", "@" + str(vars_file)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    vars_file.unlink()
    return proc, [tmp_path / name for name in throwaway]


def preflight_errors(stdout):
    """The preflight's error lines, exactly (from the failed assert's JSON result: a heading line,
    then one ``- error`` a line)."""
    for line in stdout.splitlines():
        if line.startswith("fatal: [testbox]: FAILED! => ") and "Invalid input" in line:
            lines = json.loads(line.split("=> ", 1)[1])["msg"].split("\n")[1:]
            assert all(e.startswith("- ") for e in lines), lines
            return [e[2:] for e in lines]
    return None


def test_the_generated_inputs_are_reproducible_and_many():
    runs = batches(SEED)
    assert runs == batches(SEED)
    assert sum(len(run["cases"]) for run in runs) >= 50


@pytest.mark.parametrize("index", range(len(batches(SEED))))
def test_hostile_inputs_are_refused_before_any_change(tmp_path, index):
    run = batches(SEED)[index]
    proc, created = run_site(tmp_path, run["extra"])
    assert proc.returncode != 0, proc.stdout[-3000:]
    errors = preflight_errors(proc.stdout)
    assert errors is not None, proc.stdout[-3000:]
    for variable, key, needle, secret in run["cases"]:
        mine = [e for e in errors if needle in e]
        assert mine, "no error for %s %r (expected %r) in:\n%s" % (variable, key, needle,
                                                                  "\n".join(errors))
        assert all(e.startswith(variable) for e in mine)
        if secret:
            assert secret not in proc.stdout
    assert "changed=0" in proc.stdout
    for path in created:
        assert not path.exists(), "the run created %s before failing" % path


# vllm_rollout_* are play keywords of provision.yml, read before any task: the controller play
# (playbooks/ansible_version.yml) checks them first and ends the whole run
def test_a_negative_max_fail_percentage_is_named(tmp_path):
    cases = (("vllm_rollout_max_fail_percentage", -1, "-1"), ("vllm_rollout_max_fail_percentage", "ten", "'ten'"),
             ("vllm_rollout_max_fail_percentage", 101, "101"), ("vllm_rollout_serial", 0, "0"),
             ("vllm_rollout_serial", "-5%", "'-5%'"))
    for name, value, shown in cases:
        proc, _ = run_site(tmp_path, {name: value})
        assert proc.returncode != 0, (name, value)
        assert "%s is %s" % (name, shown) in proc.stdout, (name, value, proc.stdout[-2000:])
        assert "PLAY [Provision" not in proc.stdout


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


def diff_after(stdout, task):
    """The rendered text of ``task``'s diff (its '+' lines)."""
    block = stdout.split("TASK [vllm_service : %s]" % task, 1)[1].split("\nTASK [", 1)[0]
    return "".join(line[1:] + "\n" for line in block.splitlines()
                   if line.startswith("+") and not line.startswith("+++"))


def test_awkward_legal_inputs_render_exactly_what_was_meant(tmp_path):
    extra = legal_inputs(SEED)
    proc, created = run_site(tmp_path, extra)
    assert proc.returncode == 0, proc.stdout[-4000:]
    rendered = yaml.safe_load(diff_after(proc.stdout, "Render the server's options (vLLM --config YAML)"))
    for key, value in extra["vllm_service_options"].items():
        assert rendered[key.lstrip("-").replace("_", "-")] == value, key
    assert rendered["served-model-name"] == "org/Model-1.5:q4"
    assert rendered["host"] == "0.0.0.0" and rendered["port"] == 8123
    env = parse_env_file(diff_after(proc.stdout, "Render the server's environment file"))
    for key, value in extra["vllm_service_env"].items():
        assert env[key] == value, key
    assert "VLLM_API_KEY" not in env
    assert extra["vllm_service_api_key"] not in proc.stdout
    for path in created:
        assert not path.exists(), "check mode created %s" % path
