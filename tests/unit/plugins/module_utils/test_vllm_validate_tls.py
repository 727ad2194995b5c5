"""vllm_service_tls_*: both or neither, PEM of the right kind, the key never shown; the
reserved ssl options; the warning for a key sent in clear."""
import shutil

import pytest

import vllm_options as o
import vllm_validate as v
from vllm_testlib import make_tls_cert

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
KEY_BODY = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSECRETSECRETSECRETSECRET"
KEY = "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n" % KEY_BODY
CERT = "-----BEGIN CERTIFICATE-----\nMIIBfzCCASWgAwIBAgIUQ2VydA==\n-----END CERTIFICATE-----\n"


def tls(cert="", key="", ca=""):
    return v.validate_inputs({"vllm_service_tls_cert": cert, "vllm_service_tls_key": key,
                              "vllm_service_tls_ca": ca})


@needs_openssl
def test_a_real_certificate_and_key_pass(tmp_path):
    _, _, cert, key = make_tls_cert(tmp_path)
    assert tls(cert, key) == []
    assert tls(cert + cert, key, ca=cert) == []  # a chain; a CA as PEM
    assert tls(cert, key, ca="/etc/ssl/certs/ca-certificates.crt") == []


def test_neither_is_plain_http():
    assert tls() == []


@pytest.mark.parametrize("cert, key", [(CERT, ""), ("", KEY)])
def test_both_or_neither(cert, key):
    [error] = tls(cert, key)
    assert "accepted: both (https) or neither" in error


@pytest.mark.parametrize("key", [
    KEY.replace("PRIVATE KEY", "CERTIFICATE"),
    KEY.replace("BEGIN PRIVATE KEY", "BEGIN OPENSSH PRIVATE KEY"),
    KEY + KEY,
    "junk " + KEY,
    KEY_BODY,
    KEY.replace("PRIVATE KEY", "ENCRYPTED PRIVATE KEY"),
])
def test_a_bad_key_is_refused_without_showing_it(key):
    [error] = tls(CERT, key)
    assert error.startswith("vllm_service_tls_key")
    assert "not shown" in error
    assert "SECRET" not in error and KEY_BODY[:12] not in error


@pytest.mark.parametrize("cert", [CERT.replace("CERTIFICATE", "PRIVATE KEY"), "hello", CERT + "x",
                                  CERT + KEY])
def test_a_bad_certificate_is_refused(cert):
    errors = tls(cert, KEY)
    assert len(errors) == 1 and errors[0].startswith("vllm_service_tls_cert holds"), errors
    assert KEY_BODY not in errors[0] and "SECRET" not in errors[0]


@pytest.mark.parametrize("ca", ["relative/ca.pem", "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----"])
def test_a_bad_ca_is_refused(ca):
    [error] = tls(CERT, KEY, ca)
    assert error.startswith("vllm_service_tls_ca") and "accepted" in error


def test_a_ca_without_a_certificate_is_refused():
    [error] = tls(ca=CERT)
    assert "vllm_service_tls_ca is set" in error


def test_the_server_name_is_a_host_name():
    [error] = v.validate_inputs({"vllm_service_tls_server_name": "bad name"})
    assert error.startswith("vllm_service_tls_server_name is 'bad name'")
    assert v.validate_inputs({"vllm_service_tls_server_name": "vllm.example.com"}) == []


@pytest.mark.parametrize("options", [
    {"ssl_keyfile": "/tmp/k.pem"}, {"ssl-certfile": "/tmp/c.pem"}, {"--ssl-keyfile": "/k"},
    {"ssl_key": "/k"}, {"ssl-certf": "/c"},  # abbreviations argparse expands
    {"seed": [0, "--ssl-keyfile", "/k"]},
])
def test_the_ssl_files_cannot_be_set_through_the_options(options):
    errors = v.validate_inputs({"vllm_service_options": options})
    assert errors and all(e.startswith("vllm_service_options") for e in errors)
    if "seed" not in options:
        assert any("vllm_service_tls_" in e for e in errors), errors


def test_the_other_ssl_options_stay_open():
    assert v.validate_inputs({"vllm_service_options": {"ssl_ca_certs": "/etc/ca.pem",
                                                        "ssl_cert_reqs": 2}}) == []


def test_the_service_sets_the_ssl_files_itself():
    options, reasons = o.compute_options("cpu", {"cpus": 2, "memory": {"total_mib": 4096}}, {},
                                         "tiny", "0.0.0.0", 8443, None, 0,
                                         {"certfile": "/etc/vllm/tls/cert.pem",
                                          "keyfile": "/etc/vllm/tls/key.pem"})
    assert options["ssl_certfile"] == "/etc/vllm/tls/cert.pem"
    assert options["ssl_keyfile"] == "/etc/vllm/tls/key.pem"
    text = o.to_cli_yaml(options)
    assert 'ssl-keyfile: "/etc/vllm/tls/key.pem"' in text and reasons["ssl_keyfile"]
    plain, _ = o.compute_options("cpu", {"cpus": 2}, {}, "tiny", "127.0.0.1", 8000)
    assert "ssl_certfile" not in plain and "ssl_keyfile" not in plain


@pytest.mark.parametrize("host, key, tls_on, warned", [
    ("0.0.0.0", "k", False, True),
    ("0.0.0.0", "k", True, False),
    ("127.0.0.1", "k", False, False),
    ("0.0.0.0", "", False, False),   # refused by check_exposure instead, or allowed on purpose
])
def test_a_key_sent_in_clear_is_a_warning(host, key, tls_on, warned):
    warnings = v.exposure_warnings(host, key, tls_on)
    assert bool(warnings) is warned
    if warned:
        assert "plain http" in warnings[0] and "vllm_service_tls_cert" in warnings[0]
