"""After the side effect: instance beta was removed from vllm_instances. Only beta is stopped and
gone (unit state, options and environment files; its journal stays); alpha still answers and was
not restarted."""
import json
import re


def completion(host, port, model):
    body = json.dumps({"model": model, "prompt": "Hello", "max_tokens": 4})
    out = host.check_output("curl -sS --max-time 120 -H 'Content-Type: application/json' -d '%s' "
                            "http://127.0.0.1:%d/v1/completions" % (body, port))
    return json.loads(out)


def test_alpha_still_answers(host):
    assert completion(host, 8001, "tiny-llama")["choices"][0]["text"] is not None


def test_alpha_was_not_restarted(host):
    before = host.file("/root/alpha-pid-before-removal").content_string.strip()
    now = host.check_output("systemctl show -p MainPID --value vllm@alpha.service")
    assert before == now and now != "0"


def test_alpha_kept_its_own_cores_past_the_removal(host):
    """While beta ran, each had its own cores (vLLM's "auto" binds both to the same ones); alone,
    alpha's file goes back to "auto", and that change alone did not restart it."""
    pid = host.check_output("systemctl show -p MainPID --value vllm@alpha.service")
    environ = host.check_output("tr '\\0' '\\n' < /proc/%s/environ" % pid).splitlines()
    running = [line.split("=", 1)[1] for line in environ if line.startswith("VLLM_CPU_OMP_THREADS_BIND=")]
    assert running and re.fullmatch(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*", running[0]), environ
    assert 'VLLM_CPU_OMP_THREADS_BIND="auto"' in host.file("/etc/vllm/instances/alpha.env").content_string


def test_alpha_runs_from_the_template_with_its_own_files(host):
    unit = host.check_output("systemctl cat vllm@alpha.service")
    assert "EnvironmentFile=/etc/vllm/instances/%i.env" in unit
    assert "ProtectSystem=strict" in unit and "NoNewPrivileges=true" in unit
    assert host.service("vllm@alpha.service").is_running
    assert host.service("vllm@alpha.service").is_enabled
    assert host.file("/etc/systemd/system/vllm@.service").exists
    options = host.file("/etc/vllm/instances/alpha.yaml")
    assert options.exists and options.mode == 0o640 and options.user == "root"
    assert "port: 8001" in options.content_string
    assert host.file("/etc/vllm/instances/alpha.env").exists
    # the one-server unit is not used when there are instances
    assert not host.file("/etc/systemd/system/vllm.service").exists
    servers = host.check_output("ps -eo user=,args= | grep '[a]pi_server' || true").splitlines()
    # one server left (beta's is gone), alpha's, as the service user
    assert len(servers) == 1, servers
    assert "/etc/vllm/instances/alpha.yaml" in servers[0] and servers[0].split()[0] == "vllm"


def test_beta_is_stopped_and_removed(host):
    assert not host.service("vllm@beta.service").is_running
    assert not host.service("vllm@beta.service").is_enabled
    assert not host.file("/etc/vllm/instances/beta.yaml").exists
    assert not host.file("/etc/vllm/instances/beta.env").exists
    assert host.run("curl -sS --max-time 5 http://127.0.0.1:8002/health").rc != 0
    # its journal stays
    assert host.check_output("journalctl -u vllm@beta.service -q --no-pager | wc -l") != "0"


def test_beta_model_kept(host):
    assert host.file("/srv/models/tiny-b/config.json").exists


def test_beta_files_were_copied_before_removal(host):
    """Nothing removed without a copy: beta's options and environment are under
    /etc/vllm/removed/ (root only), byte for byte what beta ran with (its port and name)."""
    removed = host.file("/etc/vllm/removed")
    assert removed.is_directory and removed.user == "root" and removed.mode == 0o700
    names = host.check_output("ls -1 /etc/vllm/removed").splitlines()
    options = [n for n in names if n.startswith("etc_vllm_instances_beta.yaml.")]
    env = [n for n in names if n.startswith("etc_vllm_instances_beta.env.")]
    assert len(options) == 1 and len(env) == 1, names
    copy = host.file("/etc/vllm/removed/" + options[0])
    assert copy.user == "root" and copy.mode == 0o600
    assert "port: 8002" in copy.content_string
    # alpha's files were not copied: it was not removed
    assert not [n for n in names if "alpha" in n], names
