"""Each decision moved out of the roles' Jinja into a filter gives what the Jinja gave.

The roles' former expressions are kept here as written and rendered with Ansible's own templar
(native types, its filters and tests, its undefined handling) next to the filter that replaced
them, over the cases the Jinja handled: the values must be identical, types included.
"""
import base64
import os

import pytest

from vllm_testlib import ROOT

os.environ.setdefault("ANSIBLE_FILTER_PLUGINS", os.path.join(ROOT, "plugins", "filter"))

from ansible.parsing.dataloader import DataLoader  # noqa: E402
from ansible.plugins.loader import init_plugin_loader  # noqa: E402
from ansible.template import Templar, trust_as_template  # noqa: E402

init_plugin_loader()


def render(expression, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def plain(value):
    """``value`` with Ansible's tagged types as the plain ones (repr then tells types apart)."""
    if isinstance(value, dict):
        return dict((plain(k), plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    assert value is None, type(value)
    return value


def same(old, new, variables):
    before = render(old, variables)
    after = render(new, variables)
    assert repr(plain(after)) == repr(plain(before)), (variables, before, after)
    assert isinstance(after, list) == isinstance(before, list)
    return after


HOSTS = [{"init": {"systemd_booted": True}}, {"init": {"systemd_booted": False}}]


@pytest.mark.parametrize("requested", ["auto", "systemd", "launcher"])
@pytest.mark.parametrize("host", HOSTS)
def test_service_manager(requested, host):
    same("{{ vllm_service_manager if vllm_service_manager != 'auto'"
         " else ('systemd' if vllm_host.init.systemd_booted else 'launcher') }}",
         "{{ vllm_service_manager | vllm_service_manager_choice(vllm_host) }}",
         {"vllm_service_manager": requested, "vllm_host": host})


@pytest.mark.parametrize("tls", [True, False])
@pytest.mark.parametrize("ca", ["", "/etc/ca.pem"])
def test_tls_files_and_trusted_ca(tls, ca):
    variables = {"t": tls, "c": "/etc/vllm/tls/cert.pem", "k": "/etc/vllm/tls/key.pem",
                 "vllm_service_tls_ca": ca}
    same("{{ {'certfile': c, 'keyfile': k} if t else {} }}", "{{ t | vllm_tls_files(c, k) }}",
         variables)
    same("{{ (vllm_service_tls_ca or c) if t else '' }}",
         "{{ t | vllm_trusted_ca(vllm_service_tls_ca, c) }}", variables)


OLD_ABSENT = ("{{ [u, l, lib | dirname, c, r ~ '/current', r ~ '/releases', r ~ '/releases.json']"
              " + ([vllm_model_store] if vllm_model_remove_store | bool else []) }}")
OLD_KEPT = "{{ [] if vllm_model_remove_store | bool else [vllm_model_store] }}"
NEW_ABSENT = ("{{ ([u, l, lib | dirname, c] + [r ~ '/current', r ~ '/releases', r ~ '/releases.json'])"
              " | vllm_absent_paths(vllm_model_store, vllm_model_remove_store | bool) }}")


@pytest.mark.parametrize("remove", [True, False, "false", "yes", "0"])
def test_absent_paths(remove):
    variables = {"u": "/etc/systemd/system/vllm.service", "l": "/usr/local/sbin/vllm-launcher",
                 "lib": "/usr/local/lib/vllm-provision/vllm_launcher.py", "c": "/etc/vllm",
                 "r": "/opt/vllm", "vllm_model_store": "/var/lib/vllm/models",
                 "vllm_model_remove_store": remove}
    new = render(NEW_ABSENT, variables)
    assert new["remove"] == render(OLD_ABSENT, variables)
    assert new["kept"] == render(OLD_KEPT, variables)


def _slurp(text):
    return {"content": base64.b64encode(text.encode("utf-8")).decode("ascii"), "encoding": "base64"}


@pytest.mark.parametrize("slurped", [
    None, {}, {"skipped": True}, _slurp(""), _slurp("# only a comment\n"),
    _slurp("host: 0.0.0.0\nport: 8000\nserved-model-name: tiny\nssl-certfile: /x\n"),
    _slurp("a: [1, 2]\nb: {c: true}\nd: 1.5\ne: 'été'\n")])
def test_options_before(slurped):
    variables = {} if slurped is None else {"o": slurped}
    same("{{ ((o.content | b64decode | from_yaml) or {}) if o.content is defined else {} }}",
         "{{ o | default({}) | vllm_options_before }}", variables)
