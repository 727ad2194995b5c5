"""community.general-style helpers: exit_json/fail_json raise, arguments come from a fixture."""
import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args


class AnsibleExitJson(Exception):
    pass


class AnsibleFailJson(Exception):
    pass


def _exit_json(self, **kwargs):
    kwargs.setdefault("changed", False)
    raise AnsibleExitJson(kwargs)


def _fail_json(self, **kwargs):
    kwargs["failed"] = True
    raise AnsibleFailJson(kwargs)


@pytest.fixture
def module_runner(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, "exit_json", _exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", _fail_json)

    def run(module, args):
        with patch_module_args(dict(args, _ansible_remote_tmp="/tmp",
                                    _ansible_keep_remote_files=False)):
            try:
                module.main()
            except AnsibleExitJson as exc:
                return exc.args[0]
            except AnsibleFailJson as exc:
                return exc.args[0]
        raise AssertionError("module returned without exit_json/fail_json")

    return run
