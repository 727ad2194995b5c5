"""vllm_firewall: the guard's nftables text and the check of vllm_service_firewall_allow
(nft itself checks the text when it is installed and may run: `nft -c -f`)."""
import shutil
import subprocess

import pytest

import vllm_firewall as f
import vllm_validate as v


def test_no_allow_list_no_rule():
    assert f.guard_ruleset(8000, []) == ""
    assert f.guard_ruleset(8000, None) == ""


def test_rule_admits_loopback_and_the_list_and_resets_the_rest():
    text = f.guard_ruleset(8001, ["10.89.0.7", "10.0.0.0/24", "fd00::5", "10.89.0.7"])
    lines = [line.strip() for line in text.splitlines()]
    assert "table inet vllm_guard" in lines and "delete table inet vllm_guard" in lines
    assert 'iifname "lo" tcp dport 8001 accept' in lines
    # sorted, de-duplicated, a host without /32
    assert "ip saddr { 10.0.0.0/24, 10.89.0.7 } tcp dport 8001 accept" in lines
    assert "ip6 saddr { fd00::5 } tcp dport 8001 accept" in lines
    assert lines.index("tcp dport 8001 reject with tcp reset") > lines.index('iifname "lo" tcp dport 8001 accept')
    # the rule touches only the server's port and never flushes the user's ruleset
    assert "flush ruleset" not in text
    assert "policy accept" in text


def test_only_one_family_written_when_only_one_given():
    text = f.guard_ruleset(8000, ["192.0.2.1"])
    assert "ip6 saddr" not in text and "ip saddr { 192.0.2.1 }" in text
    text = f.guard_ruleset(8000, ["2001:db8::/64"])
    assert "ip saddr" not in text and "ip6 saddr { 2001:db8::/64 }" in text


def test_a_network_given_with_host_bits_is_its_network():
    assert "10.0.0.0/24" in f.guard_ruleset(8000, ["10.0.0.9/24"])


def test_rule_is_the_same_every_time():
    assert f.guard_ruleset(8000, ["10.0.0.2", "10.0.0.1"]) == f.guard_ruleset(8000, ["10.0.0.1", "10.0.0.2"])


@pytest.mark.parametrize("value", [[], None, "", ["10.0.0.1"], ["::1", "10.0.0.0/8"]])
def test_allow_accepted(value):
    assert f.check_allow("vllm_service_firewall_allow", value) == []


@pytest.mark.parametrize("value,shown", [
    ("10.0.0.1", "'10.0.0.1'"), ({"a": 1}, "{'a': 1}"), (["10.0.0.300"], "'10.0.0.300'"),
    (["router-1"], "'router-1'"), ([5], " 5;"), (["10.0.0.1; flush ruleset"], "flush ruleset"),
])
def test_allow_refused_names_variable_value_and_what_is_accepted(value, shown):
    errors = f.check_allow("vllm_service_firewall_allow", value)
    assert len(errors) == 1
    assert errors[0].startswith("vllm_service_firewall_allow ")
    assert shown in errors[0] and "accepted: a list of IPv4 or IPv6 addresses" in errors[0]


def test_validate_inputs_checks_the_allow_list():
    errors = v.validate_inputs({"vllm_service_firewall_allow": ["10.0.0.1", "nope"]})
    assert errors and "'nope'" in errors[0]
    assert v.validate_inputs({"vllm_service_firewall_allow": ["10.0.0.1"]}) == []


def test_guard_ports_one_server_or_every_instance():
    assert f.guard_ports(8000) == [8000]
    assert f.guard_ports("8000", [], []) == [8000]
    # vllm_instances planned: their ports, not vllm_service_port (which no server listens on then)
    planned = [{"name": "chat", "port": 8002}, {"name": "embed", "port": "8001"}, {"name": "x", "port": 8002}]
    assert f.guard_ports(8000, planned, planned) == [8001, 8002]
    # the list as given when no plan is at hand (check mode before the preflight's facts)
    assert f.guard_ports(8000, planned) == [8001, 8002]
    # a plan left from an earlier play does not count once vllm_instances is empty
    assert f.guard_ports(8000, [], planned) == [8000]


def test_rule_covers_every_instance_port():
    text = f.guard_ruleset([8002, 8001], ["10.89.0.7"])
    lines = [line.strip() for line in text.splitlines()]
    assert 'iifname "lo" tcp dport { 8001, 8002 } accept' in lines
    assert "ip saddr { 10.89.0.7 } tcp dport { 8001, 8002 } accept" in lines
    assert lines[-3] == "tcp dport { 8001, 8002 } reject with tcp reset"
    assert "ports 8001, 8002" in text
    # one port given as a list: the same text as the plain port
    assert f.guard_ruleset([8000], ["10.0.0.1"]) == f.guard_ruleset(8000, ["10.0.0.1"])


@pytest.mark.skipif(shutil.which("nft") is None, reason="nft is not installed (apt-get install nftables)")
def test_nft_accepts_the_text(tmp_path):
    path = tmp_path / "guard.nft"
    for port in (8000, [8001, 8002]):
        path.write_text(f.guard_ruleset(port, ["10.0.0.1", "fd00::1"]))
        done = subprocess.run(["nft", "-c", "-f", str(path)], capture_output=True, text=True, check=False)
        if "Operation not permitted" in done.stderr:
            pytest.skip("nft -c needs CAP_NET_ADMIN here")
        assert done.returncode == 0, done.stderr


def test_drain_timeout_range():
    assert v.validate_inputs({"vllm_rollout_drain_timeout": 60}) == []
    errors = v.validate_inputs({"vllm_rollout_drain_timeout": 7200})
    assert errors and errors[0].startswith("vllm_rollout_drain_timeout is 7200")
