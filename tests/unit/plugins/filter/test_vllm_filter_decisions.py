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


PLAN = {"index_url": "https://download.pytorch.org/whl/cpu", "extra_index_urls": ["https://x/simple"],
        "index_strategy": "unsafe-best-match", "remove_after_install": ["triton", "nvidia-nccl"]}
PLAN_BARE = {"index_url": "", "extra_index_urls": [], "index_strategy": "", "remove_after_install": []}
INDEXES = [("", [], True), ("", [], False), ("https://mine/simple", [], True),
           ("", ["https://a", "https://b"], True), ("https://mine", ["https://a"], False)]


@pytest.mark.parametrize("plan", [PLAN, PLAN_BARE])
@pytest.mark.parametrize("index_url,extra,use_plan", INDEXES)
@pytest.mark.parametrize("find_links", [[], ["/srv/wheels", "https://w/"]])
def test_install_indexes_and_uv_argv(plan, index_url, extra, use_plan, find_links):
    variables = {"vllm_preflight_plan": plan, "vllm_install_index_url": index_url,
                 "vllm_install_extra_index_urls": extra, "vllm_install_plan_indexes": use_plan,
                 "vllm_install_find_links": find_links, "uv": "/opt/vllm/bin/uv",
                 "venv": "/opt/vllm/releases/r1/venv", "lock": "/opt/r1/requirements.lock",
                 "req": "/opt/r1/requirements.in"}
    new = render("{{ vllm_preflight_plan | vllm_install_indexes(vllm_install_index_url,"
                 " vllm_install_extra_index_urls, vllm_install_plan_indexes) }}", variables)
    variables["idx"] = same(
        "{{ vllm_install_index_url or (vllm_preflight_plan.index_url if vllm_install_plan_indexes else '') }}",
        "{{ i.index_url }}", dict(variables, i=new))
    variables["extra"] = same(
        "{{ vllm_install_extra_index_urls or (vllm_preflight_plan.extra_index_urls"
        " if vllm_install_plan_indexes else []) }}", "{{ i.extra_index_urls }}", dict(variables, i=new))
    variables["src"] = same(
        "{{ (['--index-url', idx] if idx else [])"
        " + (extra | map('regex_replace', '^', '--extra-index-url=') | list)"
        " + (vllm_install_find_links | map('regex_replace', '^', '--find-links=') | list)"
        " + (['--index-strategy', vllm_preflight_plan.index_strategy]"
        " if vllm_preflight_plan.index_strategy else []) }}",
        "{{ idx | vllm_uv_source_args(extra, vllm_install_find_links,"
        " vllm_preflight_plan.index_strategy) }}", variables)
    same("{{ [uv, 'pip', 'compile', '--quiet', '--no-header', '--python', venv ~ '/bin/python',"
         " '--output-file', lock, req] + src + (vllm_preflight_plan.remove_after_install"
         " | map('regex_replace', '^', '--no-emit-package=') | list) }}",
         "{{ uv | vllm_uv_compile_argv(venv, lock, req, src, vllm_preflight_plan.remove_after_install) }}",
         variables)
    for on, source in ((False, "/var/cache/vllm-provision/wheels/abc"), (True, "/var/cache/w/abc"),
                       (True, "https://wh/abc/")):
        same("{{ [uv, 'pip', 'sync', '--compile-bytecode', '--python', venv ~ '/bin/python', lock]"
             " + (['--no-index', '--find-links', ws] if on else src) }}",
             "{{ uv | vllm_uv_sync_argv(venv, lock, src, on, ws) }}", dict(variables, on=on, ws=source))


@pytest.mark.parametrize("mode", ["none", "controller", "wheelhost", "localhost"])
@pytest.mark.parametrize("folder,python", [("", ""), ("/srv/wh", "/opt/py/bin/python3")])
def test_wheelhouse_place(mode, folder, python):
    variables = {"vllm_install_wheelhouse": mode, "vllm_install_wheelhouse_dir": folder,
                 "vllm_install_wheelhouse_python": python, "c": mode == "controller",
                 "role_path": os.path.join(ROOT, "roles", "vllm_install"),
                 "ansible_playbook_python": "/usr/bin/python3.11"}
    place = render("{{ vllm_install_wheelhouse | vllm_wheelhouse_place(vllm_install_wheelhouse_dir,"
                   " vllm_install_wheelhouse_python, role_path ~ '/../../.cache/wheelhouse',"
                   " ansible_playbook_python) }}", variables)
    variables["p"] = place
    same("{{ 'localhost' if c else vllm_install_wheelhouse }}", "{{ p.delegate }}", variables)
    same("{{ vllm_install_wheelhouse_dir or ((role_path ~ '/../../.cache/wheelhouse') | realpath"
         " if c else '/var/cache/vllm-provision/wheelhouse') }}", "{{ p.root }}", variables)
    same("{{ vllm_install_wheelhouse_python or (ansible_playbook_python"
         " if c else '/usr/bin/python3') }}", "{{ p.python }}", variables)


@pytest.mark.parametrize("lock", [None, {}, {"skipped": True, "changed": False},
                                  _slurp("torch==2.9.0\nvllm==0.11.0\n"), _slurp(""),
                                  _slurp("x==1 # é\n")])
@pytest.mark.parametrize("controller", [True, False])
@pytest.mark.parametrize("url", ["", "https://wh.example/wheels", "https://wh.example/wheels///"])
def test_lock_sha256_and_wheelhouse_source(lock, controller, url):
    variables = {} if lock is None else {"t": lock}
    sha = same("{{ (t.content | b64decode | hash('sha256'))"
               " if t.content is defined else '<sha256 of requirements.lock>' }}",
               "{{ t | default({}) | vllm_lock_sha256 }}", variables)
    variables.update(c=controller, u=url, h="/var/cache/vllm-provision/wheels/" + sha, s=sha)
    same("{{ h if c else (u | regex_replace('/+$', '')) ~ '/' ~ s ~ '/' }}",
         "{{ c | vllm_wheelhouse_source(h, u, s) }}", variables)


@pytest.mark.parametrize("source", ["builtin", "/srv/models/llama", "/srv/models/llama/",
                                    "Qwen/Qwen2.5-0.5B", "org/name", "relative/dir"])
def test_model_kind_path_and_name(source):
    variables = {"vllm_model_source": source, "b": "/var/lib/vllm/models/builtin-tiny-llama"}
    kind = same("{{ 'builtin' if vllm_model_source == 'builtin'"
                " else ('folder' if vllm_model_source is match('/') else 'hub') }}",
                "{{ vllm_model_source | vllm_model_kind }}", variables)
    variables["k"] = kind
    same("{{ b if k == 'builtin' else (vllm_model_source if k == 'folder' else '') }}",
         "{{ k | vllm_model_path(vllm_model_source, b) }}", variables)
    same("{{ 'tiny-llama' if k == 'builtin' else (vllm_model_source if k == 'hub'"
         " else (vllm_model_source | basename)) }}",
         "{{ k | vllm_model_default_name(vllm_model_source) }}", variables)
