"""A WSL2 host stand-in after converge: the model served from its native copy, .wslconfig and
/etc/wsl.conf edited line by line, the user told to run `wsl --shutdown`."""
import json

PROFILE = "/mnt/c/Users/molly"
SOURCE = PROFILE + "/models/tiny-llama"
COPY = "/var/lib/vllm/models/tiny-llama"


def test_the_host_is_seen_as_wsl_and_the_drive_as_windows(host):
    mounts = host.file("/proc/self/mounts").content_string
    assert any(line.split()[1:3] == ["/mnt/c", "tmpfs"] for line in mounts.splitlines())
    assert host.file("/etc/wsl.conf").exists  # vllm_wsl ran: only on WSL


def test_model_relocated_and_verified(host):
    copy = host.file(COPY)
    assert copy.is_directory and not copy.is_symlink
    manifest = json.loads(host.file(COPY + "/.vllm-relocate.json").content_string)
    assert manifest["source"] == SOURCE
    assert set(manifest["files"]) == {"config.json", "generation_config.json", "model.safetensors",
                                      "tokenizer.json", "tokenizer_config.json"}
    # every file of the copy has the source's sha256, and the source is untouched (copy mode)
    check = host.run("cd %s && sha256sum -c /root/model.sha256", COPY)
    assert check.rc == 0, check.stdout + check.stderr
    assert host.run("cd %s && sha256sum -c /root/model.sha256", SOURCE).rc == 0
    for name, entry in manifest["files"].items():
        assert host.check_output("sha256sum %s/%s", COPY, name).split()[0] == entry["sha256"]
    assert not host.file("/var/lib/vllm/models/.tiny-llama.partial").exists


def test_server_serves_the_native_copy(host):
    options = host.file("/etc/vllm/vllm.yaml").content_string
    assert 'model: "%s"' % COPY in options or "model: %s\n" % COPY in options
    assert "/mnt/c" not in options
    out = host.check_output("curl -sS --max-time 30 http://127.0.0.1:8000/v1/models")
    models = json.loads(out)["data"]
    assert models[0]["id"] == "tiny-llama"
    assert models[0]["root"] == COPY
    # no process maps a file from the Windows drive (vLLM mmaps the safetensors it serves)
    mapped = host.run("grep -l ' /mnt/c/' /proc/[0-9]*/maps 2>/dev/null")
    assert mapped.stdout.strip() == "", mapped.stdout


def test_wslconfig_only_the_memory_line_changed(host):
    original = host.file("/root/wslconfig.original").content
    edited = host.file(PROFILE + "/.wslconfig").content
    assert edited.count(b"\r\n") == original.count(b"\r\n") and b"\n" not in edited.replace(b"\r\n", b"")
    old, new = original.split(b"\r\n"), edited.split(b"\r\n")
    assert len(old) == len(new)
    changed = [(a, b) for a, b in zip(old, new) if a != b]
    # tiny model + 10GB runtime overhead = 10.0004 GiB: memory rounded up to 11GB; swap=8GB holds
    assert changed == [(b"memory=8GB", b"memory=11GB")]


def test_wslconfig_backup_is_the_original(host):
    backup = host.file(PROFILE + "/.wslconfig.vllm-backup")
    assert backup.exists
    assert backup.content == host.file("/root/wslconfig.original").content
    assert not host.file(PROFILE + "/.wslconfig.vllm-backup.1").exists  # idempotence wrote no second


def test_wsl_conf_enables_systemd(host):
    text = host.file("/etc/wsl.conf").content_string
    assert "[boot]\nsystemd=true\n" in text
