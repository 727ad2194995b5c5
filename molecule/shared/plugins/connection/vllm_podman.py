# The Molecule scenarios' connection: containers.podman.podman with pipelining.
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""containers.podman.podman, with Ansible's pipelining, for the Molecule scenarios' containers.

The collection's plugin runs ``podman exec`` without ``-i`` and so declares pipelining
unsupported: every module costs a ``podman mount``, an exec to make a temporary folder, a file
copy and an exec to run it (about 0.2 s per podman call on our machines). Real hosts are reached
over SSH with ``pipelining = true`` (ansible.cfg): one process per module, the module on its
stdin. This plugin does the same through ``podman exec -i`` and mounts the container's
filesystem only when a file is really copied (the ``copy`` and ``template`` modules), so the
tests run the way users' runs do, in fewer podman calls.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = """
    name: vllm_podman
    short_description: containers.podman.podman with pipelining (podman exec -i)
    description:
        - Run commands or put/fetch files in an existing podman container, with pipelining.
    options:
      remote_addr:
        description:
          - The ID of the container you want to access.
        default: inventory_hostname
        vars:
          - name: ansible_host
          - name: inventory_hostname
          - name: ansible_podman_host
      remote_user:
        description:
          - User specified via name or UID which is used to execute commands inside the container.
        ini:
          - section: defaults
            key: remote_user
        env:
          - name: ANSIBLE_REMOTE_USER
        vars:
          - name: ansible_user
      podman_extra_args:
        description:
          - Extra arguments to pass to the podman command line.
        default: ''
        ini:
          - section: defaults
            key: podman_extra_args
        vars:
          - name: ansible_podman_extra_args
        env:
          - name: ANSIBLE_PODMAN_EXTRA_ARGS
      podman_executable:
        description:
          - Executable for podman command.
        default: podman
        vars:
          - name: ansible_podman_executable
        env:
          - name: ANSIBLE_PODMAN_EXECUTABLE
      pipelining:
        description:
          - Send modules to the container's Python on stdin (one podman exec per module).
        type: boolean
        default: true
        ini:
          - section: defaults
            key: pipelining
          - section: connection
            key: pipelining
        env:
          - name: ANSIBLE_PIPELINING
        vars:
          - name: ansible_pipelining
"""

import os
import shlex

from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.connection import ConnectionBase, ensure_connect
from ansible_collections.containers.podman.plugins.connection.podman import Connection as PodmanConnection


class Connection(PodmanConnection):
    """podman exec -i, so that Ansible can pipeline modules; the filesystem mounted lazily."""

    transport = "vllm_podman"
    has_pipelining = True

    def __init__(self, *args, **kwargs):
        super(Connection, self).__init__(*args, **kwargs)
        self._mount_tried = False

    def _connect(self):
        # no mount here: most tasks never copy a file
        ConnectionBase._connect(self)
        self._connected = True
        return self

    def _ensure_mount(self):
        if self._mount_tried:
            return
        self._mount_tried = True
        rc, out, dummy = self._podman("mount")
        path = out.strip()  # bytes, as the collection's put_file and fetch_file expect
        if rc == 0 and path and os.path.isdir(path) and os.listdir(path):
            self._mount_point = path

    @ensure_connect
    def exec_command(self, cmd, in_data=None, sudoable=False):
        ConnectionBase.exec_command(self, cmd, in_data=in_data, sudoable=sudoable)
        args = ["exec"]
        if in_data is not None:
            args.append("-i")
        if self.user:
            args.extend(("--user", self.user))
        return self._podman(args, shlex.split(to_native(cmd, errors="surrogate_or_strict")), in_data)

    def put_file(self, in_path, out_path):
        self._ensure_mount()
        super(Connection, self).put_file(in_path, out_path)

    def fetch_file(self, in_path, out_path):
        self._ensure_mount()
        super(Connection, self).fetch_file(in_path, out_path)
