"""The environment-file emitter against the real systemd (PID 1 of the default scenario).

tests/unit/plugins/module_utils/test_emitters_properties.py checks vllm_options.to_env_file
against a model of systemd's EnvironmentFile= parser; here the same emitter's output for a few
hundred awkward values is given to a transient unit of the container's systemd, whose process
environment must hold exactly the values given. The launcher's own parser must read the same
file the same way. Skipped where systemd is not PID 1 (the launcher scenario).
"""
import base64
import os
import random
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# module_utils is a package (its files import each other relatively)
sys.path.insert(0, os.path.join(ROOT, "plugins"))
from module_utils import vllm_launcher  # noqa: E402
from module_utils import vllm_options  # noqa: E402

# what broke env-file parsers before, and text that only looks like syntax
PIECES = ['"', "'", "\\", "\\\\", '\\"', "$", "${HOME}", "$(id)", "`id`", "#", ";", "=", " ", "  ",
          ": ", "--host", "-", "\u00e9", "\u4e2d", "\U0001f600", "\ufeff", "\u200b", "\u0430",
          "%", "%%", "!", "&", "|", "*", "?", "[", "]", "{", "}", "export ", "a", "Z", "0"]
BAD = ["\n", "\r", "\t", "\x00", "\x0b", "\x1b", "\x7f", "\x85", "\u2028", "\u2029"]


def values(seed=20261201, count=300):
    rng = random.Random(seed)
    out = {"MY_EMPTY": "", "MY_SPACES": "  lead and trail  ", "MY_QUOTED": '"already quoted"',
           "MY_SINGLE": "'single'", "MY_BACKSLASH_END": "ends with \\"}
    for index in range(count):
        out["MY_V%03d" % index] = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
    return out


@pytest.fixture(scope="module")
def systemd(host):
    return host.file("/run/systemd/system").is_directory and \
        host.file("/proc/1/comm").content_string.strip() == "systemd"


def test_the_emitter_refuses_what_systemd_would_not_read_back():
    for char in BAD:
        with pytest.raises(ValueError):
            vllm_options.to_env_file({"MY_VALUE": "a" + char + "b"})


def test_systemd_gives_the_unit_exactly_the_values_written(host, systemd):
    if not systemd:
        pytest.skip("systemd is not PID 1 here (the launcher reads the file: unit tests)")
    given = values()
    text = vllm_options.to_env_file(given)
    assert vllm_launcher.parse_env_file(text) == given
    encoded = base64.b64encode(text.encode("utf-8")).decode()
    host.check_output("echo %s | base64 -d > /tmp/env-check.env" % encoded)
    run = host.run("systemd-run --wait --quiet --collect -p EnvironmentFile=/tmp/env-check.env "
                   "/bin/sh -c 'env -0 | base64 -w0 > /tmp/env-check.out'")
    assert run.rc == 0, run.stderr
    raw = base64.b64decode(host.check_output("cat /tmp/env-check.out")).decode("utf-8")
    got = dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)
    wrong = dict((key, (value, got.get(key))) for key, value in given.items() if got.get(key) != value)
    assert not wrong, "systemd read back differently (given, got): %r" % wrong
