# -*- coding: utf-8 -*-
"""The files the vllm_service role writes on a host, rendered on the controller.

The role's own templates (roles/vllm_service/templates) and internal variables (vars/main.yml)
with the project's filters (plugins/filter/vllm.py), from the role's defaults, the user's
variables, an install plan (vllm_plan) and stand-in host facts: what ``scripts/plan --render``
writes and what the unit tests of the systemd unit render. The internal variables are rendered
the way Ansible would (native Jinja2 types); the templates with Ansible's settings
(``trim_blocks``, ``ansible_managed``, its ``comment``/``to_nice_json``/... filters).

Controller only (Jinja2 and PyYAML, which Ansible brings): no module imports it.
"""
from __future__ import absolute_import, division, print_function

import importlib.util
import json
import os
import re
import stat

__metaclass__ = type

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLE = os.path.join(ROOT, "roles", "vllm_service")
ANSIBLE_MANAGED = "Ansible managed"
# What a host's facts stand in for when there is no host: the builtin tiny model (the model
# role's default source) and a machine with systemd as PID 1.
BUILTIN_MODEL_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
    "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
    "num_hidden_layers": 2, "max_position_embeddings": 2048, "vocab_size": 1000,
    "torch_dtype": "float32",
}
BUILTIN_MODEL_BYTES = 1200000
STAND_IN_CPUS = 8
STAND_IN_RAM_MIB = 32768
# the other roles' defaults the service's variables read (roles/vllm_python, roles/vllm_model)
OTHER_DEFAULTS = (("vllm_python", "vllm_python_root"), ("vllm_model", "vllm_model_store"))


def _load_yaml(path):
    from .vllm_common import read_yaml
    return read_yaml(path) or {}


def project_filters():
    """The project's filters (plugins/filter/vllm.py, loaded by path) and the Ansible ones the
    role's templates and variables use."""
    path = os.path.join(ROOT, "plugins", "filter", "vllm.py")
    spec = importlib.util.spec_from_file_location("vllm_render_filter_vllm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Ansible's own, for the arguments the role passes them (its templar is not here)
    filters = {
        "comment": lambda text: "#\n# %s\n#" % text,
        "regex_replace": lambda value, pattern, repl: re.sub(pattern, repl, value),
        "to_nice_json": lambda value, indent=4, sort_keys=True: json.dumps(
            value, indent=indent, sort_keys=sort_keys, separators=(",", ": ")),
        "combine": lambda *dicts: dict(kv for d in dicts for kv in d.items()),
        "dict2items": lambda d: [{"key": k, "value": v} for k, v in d.items()],
        "items2dict": lambda items: dict((i["key"], i["value"]) for i in items),
        "dirname": os.path.dirname,
        "basename": os.path.basename,
        "bool": lambda value: value if isinstance(value, bool) else str(value).strip().lower() in (
            "yes", "on", "1", "true"),
    }
    project = module.FilterModule().filters()
    filters.update(project)
    # the roles call them by the collection's name (vllm_ops.workstation.vllm_...)
    filters.update(("vllm_ops.workstation." + name, function) for name, function in project.items())
    return filters


def role_defaults():
    """The service role's defaults and those of the other roles its variables read."""
    context = {}
    for role, name in OTHER_DEFAULTS:
        context[name] = _load_yaml(os.path.join(ROOT, "roles", role, "defaults", "main.yml"))[name]
    context.update(_load_yaml(os.path.join(ROLE, "defaults", "main.yml")))
    return context


def stand_in_host(gpu=None, wsl=False, cpus=STAND_IN_CPUS, ram_mib=STAND_IN_RAM_MIB):
    """vllm_host as the host facts role reports it, for the parts the service reads."""
    return {"wsl": {"is_wsl": bool(wsl)}, "init": {"systemd_booted": True},
            "gpu": dict(gpu or {}, present=bool((gpu or {}).get("gpus"))),
            "cpus": int(cpus), "memory": {"total_mib": int(ram_mib)},
            "kernel": "6.6.87.2-microsoft-standard-WSL2" if wsl else "6.8.0"}


def role_context(plan, host, variables=None, model=None):
    """Everything the role's templates read: defaults, ``variables`` (the user's, as -e gives
    them) over them, the stand-in facts, then the internal variables of vars/main.yml rendered
    in order (those that need a fact no host gave here, such as the installed release's help
    file, are left out) and the two the tasks compute (options and environment)."""
    import jinja2
    import jinja2.nativetypes

    context = role_defaults()
    context.update(variables or {})
    model = dict(model or {})
    model.setdefault("name", context.get("vllm_model_name") or "tiny-llama")
    model.setdefault("path", "%s/builtin-tiny-llama" % context["vllm_model_store"].rstrip("/"))
    model.setdefault("config", BUILTIN_MODEL_CONFIG)
    model.setdefault("size_bytes", BUILTIN_MODEL_BYTES)
    model.setdefault("weights_bytes", model["size_bytes"])
    context.setdefault("ansible_managed", ANSIBLE_MANAGED)
    context.setdefault("vllm_host", host)
    context.setdefault("vllm_preflight_plan", {"backend": plan["backend"],
                                               "server_command": plan["server_command"]})
    context.setdefault("vllm_model_result", model)
    context.setdefault("vllm_python_result", {
        "interpreter": "/usr/bin/python%s" % plan.get("python_version", "3")})
    filters = project_filters()
    native = jinja2.nativetypes.NativeEnvironment(undefined=jinja2.StrictUndefined)
    native.filters.update(filters)
    for name, value in _load_yaml(os.path.join(ROLE, "vars", "main.yml")).items():
        if name in context or not isinstance(value, str):
            continue
        try:
            context[name] = native.from_string(value).render(context)
        except jinja2.UndefinedError:
            continue  # needs a fact of a real run (vllm_install_result, a registered result)
    # the role's "Compute the server's options" and "Compute the server's environment" tasks
    context["__vllm_service_computed"] = filters["vllm_service_options"](
        model["config"], plan["backend"], context["vllm_host"], context["__vllm_service_served_name"],
        context["vllm_service_host"], context["vllm_service_port"], context["vllm_service_options"],
        int(model["weights_bytes"]), context["__vllm_service_tls_files"])
    context["__vllm_service_environment"] = filters["vllm_service_env"](
        plan["backend"], context["vllm_host"], context["vllm_service_env"],
        context["vllm_service_state_dir"], context["__vllm_service_computed"]["options"])
    return context


def render_template(name, context):
    """roles/vllm_service/templates/<name> with Ansible's template settings."""
    import jinja2
    env = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    env.filters.update(project_filters())
    with open(os.path.join(ROLE, "templates", name)) as handle:
        return env.from_string(handle.read()).render(context)


MANAGERS = ("systemd", "launcher")


def host_files(context, managers=MANAGERS):
    """``{absolute path: (text, mode)}``: every file the role writes on the host, as its tasks
    write them (the systemd unit or the launcher's files, by ``managers``)."""
    c = context
    files = {
        c["__vllm_service_options_file"]: (render_template("vllm.yaml.j2", c), 0o640),
        c["__vllm_service_env_file"]: (render_template("vllm.env.j2", c), 0o640),
    }
    if c["__vllm_service_secrets"]:
        files[c["__vllm_service_secrets_file"]] = (
            project_filters()["vllm_env_file"](c["__vllm_service_secrets"]), 0o600)
    if c["__vllm_service_tls"]:
        files[c["__vllm_service_tls_cert_file"]] = (c["vllm_service_tls_cert"].strip() + "\n", 0o644)
        files[c["__vllm_service_tls_key_file"]] = (c["vllm_service_tls_key"].strip() + "\n", 0o640)
    if "systemd" in managers:
        files[c["__vllm_service_unit_file"]] = (render_template("vllm.service.j2", c), 0o644)
    if "launcher" in managers:
        with open(os.path.join(ROOT, "plugins", "module_utils", "vllm_launcher.py")) as handle:
            files[c["__vllm_service_launcher_lib"]] = (handle.read(), 0o644)
        files[c["__vllm_service_launcher"]] = (render_template("vllm-launcher.j2", c), 0o755)
        files[c["__vllm_service_launcher_config"]] = (render_template("launcher.json.j2", c), 0o644)
    return files


def write_tree(files, dest):
    """Write ``files`` under ``dest`` at their absolute paths (dest/etc/vllm/vllm.yaml, ...),
    with their modes; nothing outside ``dest``. Returns the paths written, sorted."""
    dest = os.path.abspath(dest)
    written = []
    for path in sorted(files):
        text, mode = files[path]
        if not os.path.isabs(path) or ".." in path.split("/"):
            raise ValueError("%r is not an absolute path without '..'" % path)
        target = os.path.join(dest, path.lstrip("/"))
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(target, mode)
        written.append(target)
    return written


def mode_text(path):
    return oct(stat.S_IMODE(os.stat(path).st_mode))[2:].zfill(4)


def input_errors(variables):
    """The preflight's checks of the service's variables given: their types and choices (the
    service role's argument spec, vllm_argspec) and vllm_validate's, the exposure rule with them,
    with the defaults for what is not given."""
    from . import vllm_argspec, vllm_validate
    values = role_defaults()
    values.update(variables or {})
    checked = dict((k, v) for k, v in values.items() if k.startswith(("vllm_service_", "vllm_model_name")))
    spec = vllm_argspec.spec_options([_load_yaml(os.path.join(ROLE, "meta", "argument_specs.yml"))])
    return vllm_argspec.merge_errors(vllm_argspec.check(spec, checked), vllm_validate.validate_inputs(checked))


def render(plan, gpu, dest, variables=None, wsl=False, managers=MANAGERS,
           cpus=STAND_IN_CPUS, ram_mib=STAND_IN_RAM_MIB):
    """``scripts/plan --render``: the host's files for ``plan`` under ``dest``. Returns
    ``(errors, [(path under dest, mode)])``; nothing is written when the inputs are refused."""
    errors = input_errors(variables)
    if errors:
        return errors, []
    try:
        from ansible.errors import AnsibleError
    except ImportError:  # plain Python: the filters raise ValueError
        AnsibleError = ValueError
    try:
        context = role_context(plan, stand_in_host(gpu, wsl, cpus, ram_mib), variables)
    except (ValueError, AnsibleError) as err:  # the model does not fit: the numbers, the way out
        return [str(err)], []
    written = write_tree(host_files(context, managers), dest)
    return [], [(path, mode_text(path)) for path in written]
