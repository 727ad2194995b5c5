"""After the failing starts and a normal run, the server answers again on its usual port."""
import json


def test_server_answers_again(host):
    assert host.service("vllm").is_running
    assert host.check_output("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8000/health") == "200"
    body = json.loads(host.check_output("curl -s http://127.0.0.1:8000/v1/models"))
    assert [m["id"] for m in body["data"]] == ["tiny-llama"]


def test_rendered_options_are_back_to_normal(host):
    text = host.file("/etc/vllm/vllm.yaml").content_string
    assert "port: 8000" in text
    assert 'model: "/var/lib/vllm/models/builtin-tiny-llama"' in text
