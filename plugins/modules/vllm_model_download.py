#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, vLLM provisioner maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Download a model from the Hugging Face Hub (or a mirror) into the native-filesystem store."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vllm_model_download
short_description: Put a Hugging Face Hub model into the model store, once per resolved commit
description:
  - Resolves O(revision) (branch, tag or commit) to a commit, records it under
    C(<store>/hub/<org>--<name>/refs/), and downloads that commit's files with C(huggingface_hub)
    into C(<store>/hub/<org>--<name>/snapshots/<commit>/) (C(local_dir) mode).
  - Runs with the release venv's Python (C(huggingface_hub) is a vLLM dependency); set
    C(ansible_python_interpreter) on the task.
  - No network when the store already holds a finished download of the commit (a commit revision,
    or a branch or tag recorded by an earlier run unless O(refresh)). A new revision is a new
    folder; nothing the server reads is overwritten.
  - Resumable, as C(huggingface_hub) 2.4 does it; a transfer cut mid-file is resumed with an HTTP
    C(Range) request in the same run; files finished before an interrupted run are not fetched again.
  - When the repository has safetensors weights, other weight formats (C(*.bin), C(*.pth), C(*.gguf),
    C(original/), C(consolidated*.safetensors)) are not fetched.
  - The token goes to the Hub as an C(Authorization) header only; never in the environment, the
    command line, the log or the result.
  - Check mode resolves nothing and downloads nothing; it reports whether a download would run.
options:
  repo_id: {description: Hub repository id C(org/name)., type: str, required: true}
  revision: {description: "Branch, tag or 40-hex commit.", type: str, default: main}
  store: {description: The model store (C(vllm_model_store))., type: path, required: true}
  endpoint: {description: Hub or mirror URL; empty for huggingface_hub's default., type: str, default: ""}
  token: {description: Hugging Face token (gated or private repositories)., type: str, default: ""}
  refresh: {description: Ask the Hub again what a branch or tag points to., type: bool, default: false}
  log_file: {description: Progress log (follow it with tail -f)., type: path}
  max_workers: {description: Files fetched in parallel., type: int, default: 4}
author:
  - vLLM provisioner maintainers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Download Qwen/Qwen3-0.6B
  vllm_model_download:
    repo_id: Qwen/Qwen3-0.6B
    revision: main
    store: /var/lib/vllm/models
    token: "{{ vllm_model_hf_token }}"
  vars:
    ansible_python_interpreter: /opt/vllm/current/venv/bin/python
"""

RETURN = r"""
path: {description: The snapshot folder to serve., returned: always, type: str}
commit: {description: The resolved commit (null in check mode when not resolved yet)., returned: always, type: str}
revision: {description: The revision asked for., returned: always, type: str}
network: {description: Whether the Hub was asked., returned: always, type: bool}
files: {description: Files of the snapshot with their sizes., returned: when downloaded or present, type: dict}
downloaded_bytes: {description: Bytes fetched in this run (files not present before)., returned: always, type: int}
elapsed_s: {description: Seconds the download took., returned: always, type: float}
warnings_list: {description: What went wrong but did not stop the run., returned: always, type: list}
"""

import glob
import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.vllm_ops.workstation.plugins.module_utils.vllm_hub import (
    is_repo_id, plan, read_marker, repo_dir, select_files, snapshot_complete, snapshot_dir, write_marker, write_ref)


class HubError(Exception):
    """The download could not be done: the message says why and what to do."""


def _hub_environment(store):
    """huggingface_hub reads these at import: caches (Xet) in the store, no telemetry, no TTY bars."""
    home = os.path.join(store, "hub", ".hf-home")
    os.environ["HF_HOME"] = home
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HUB_DISABLE_IMPLICIT_TOKEN"] = "1"
    for key in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE"):
        os.environ.pop(key, None)


def _progress_class(log_file):
    """A tqdm that writes its bars to the progress log, a line every few seconds."""
    from tqdm import tqdm  # a dependency of huggingface_hub

    handle = open(log_file, "a", buffering=1, encoding="utf-8") if log_file else None

    class LogTqdm(tqdm):  # pylint: disable=too-many-ancestors
        def __init__(self, *args, **kwargs):
            kwargs.pop("name", None)
            kwargs["file"] = handle
            kwargs["disable"] = handle is None
            kwargs["mininterval"] = 3
            kwargs["ascii"] = True
            kwargs["dynamic_ncols"] = False
            kwargs["ncols"] = 100
            super(LogTqdm, self).__init__(*args, **kwargs)

    return LogTqdm, handle


def _describe(err, endpoint, repo_id, revision):
    name = type(err).__name__
    where = endpoint or "the Hugging Face Hub"
    if name == "RepositoryNotFoundError":
        return ("%s has no repository %s (or it is private and vllm_model_hf_token is not set or not "
                "allowed): check vllm_model_source" % (where, repo_id))
    if name == "RevisionNotFoundError":
        return ("%s has no revision %s: check vllm_model_revision (a branch, tag or commit)"
                % (repo_id, revision))
    if name == "GatedRepoError":
        return ("%s is gated: accept its terms on the Hub with your account and set vllm_model_hf_token "
                "(from Ansible Vault)" % repo_id)
    if name in ("ConnectError", "ConnectTimeout", "TimeoutException", "ReadTimeout", "ProxyError",
                "OfflineModeIsEnabled"):
        return ("cannot reach %s (%s: %s): check the host's network or proxy, set vllm_model_hub_endpoint "
                "to a mirror, or copy the model to the host and set vllm_model_source to its folder"
                % (where, name, err))
    return "%s: %s" % (name, err)


def fetch(repo_id, revision, store, endpoint="", token="", refresh=False, log_file=None,
          max_workers=4, check_mode=False):
    """Do what :func:`vllm_hub.plan` says; return the module's result (raises :class:`HubError`)."""
    if not is_repo_id(repo_id):
        raise HubError("%r is not a Hub repository id (org/name)" % (repo_id,))
    started = time.time()
    decided = plan(store, repo_id, revision, refresh)
    result = {"revision": revision, "commit": decided["commit"], "network": False, "downloaded_bytes": 0,
              "elapsed_s": 0.0, "changed": False, "warnings_list": [], "reason": decided["reason"]}
    if decided["complete"]:
        result["path"] = decided["snapshot"]
        result["files"] = (read_marker(decided["snapshot"]) or {}).get("files", {})
        return result
    if check_mode:
        result["changed"] = True
        result["path"] = decided["snapshot"] or os.path.join(repo_dir(store, repo_id), "snapshots",
                                                             "unresolved-" + revision.replace("/", "%2F"))
        return result

    _hub_environment(store)
    # pylint: disable=import-outside-toplevel
    from huggingface_hub import HfApi, snapshot_download

    api = HfApi(endpoint=endpoint or None, token=token or False)
    result["network"] = True
    try:
        info = api.model_info(repo_id, revision=decided["commit"] or revision)
    except Exception as err:  # pylint: disable=broad-except  # every Hub error is reported, none hidden
        raise HubError("could not resolve %s@%s: %s" % (repo_id, revision, _describe(err, endpoint, repo_id,
                                                                                      revision)))
    commit = info.sha
    names = [s.rfilename for s in (info.siblings or [])]
    wanted = select_files(names)
    if not wanted:
        raise HubError("%s@%s (commit %s) lists no files" % (repo_id, revision, commit))
    snapshot = snapshot_dir(store, repo_id, commit)
    result["commit"] = commit
    result["path"] = snapshot
    if snapshot_complete(snapshot)[0]:  # e.g. refresh found the branch where it was
        result["changed"] = write_ref(store, repo_id, revision, commit)
        result["files"] = read_marker(snapshot).get("files", {})
        result["elapsed_s"] = round(time.time() - started, 1)
        return result
    before = dict((n, os.path.getsize(os.path.join(snapshot, n))) for n in wanted
                  if os.path.isfile(os.path.join(snapshot, n)))
    if not os.path.isdir(snapshot):
        os.makedirs(snapshot)
    progress, handle = _progress_class(log_file)
    try:
        if handle:
            handle.write("%s download %s@%s (commit %s): %d files into %s\n"
                         % (time.strftime("%Y-%m-%d %H:%M:%S"), repo_id, revision, commit, len(wanted),
                            snapshot))
        snapshot_download(repo_id, revision=commit, local_dir=snapshot, endpoint=endpoint or None,
                          token=token or False, allow_patterns=[glob.escape(n) for n in wanted],
                          tqdm_class=progress, max_workers=max_workers)
    except Exception as err:  # pylint: disable=broad-except
        raise HubError("the download of %s@%s (commit %s) stopped: %s. Files finished so far stay in %s; run "
                       "again to fetch the rest" % (repo_id, revision, commit,
                                                    _describe(err, endpoint, repo_id, revision), snapshot))
    finally:
        if handle:
            handle.close()
    files = dict((n, os.path.getsize(os.path.join(snapshot, n))) for n in wanted)
    write_marker(snapshot, repo_id, revision, commit, files)
    write_ref(store, repo_id, revision, commit)
    result.update(changed=True, files=files, elapsed_s=round(time.time() - started, 1),
                  downloaded_bytes=sum(size for n, size in files.items() if before.get(n) != size))
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            repo_id=dict(type="str", required=True),
            revision=dict(type="str", default="main"),
            store=dict(type="path", required=True),
            endpoint=dict(type="str", default=""),
            token=dict(type="str", default="", no_log=True),
            refresh=dict(type="bool", default=False),
            log_file=dict(type="path"),
            max_workers=dict(type="int", default=4),
        ),
        supports_check_mode=True,
    )
    p = module.params
    try:
        result = fetch(p["repo_id"], p["revision"], p["store"], p["endpoint"], p["token"], p["refresh"],
                       p["log_file"], p["max_workers"], module.check_mode)
    except HubError as err:
        module.fail_json(msg=str(err), changed=False)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
