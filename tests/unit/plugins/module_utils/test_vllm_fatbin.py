"""Tests for plugins/module_utils/vllm_fatbin.py on synthetic fatbins and ELF files.

The byte layout matches what nvcc 13.0 writes (checked by hand on nvcc -fatbin output for
sm_75, sm_86, sm_90a, sm_100f, sm_120 + compute_120, and --compress-mode=size).
"""
import struct

import pytest

import vllm_fatbin
from vllm_fatbin import FatbinError, archs_of_file, parse_fatbin, sort_archs


def entry(kind, arch, flags=0x11, payload=b"\x7fELF" + b"\0" * 28, header_size=64, ptx_isa=(9, 0)):
    major, minor = (1, 8) if kind == 2 else ptx_isa
    head = struct.pack("<HHIQIIHHIIIQ", kind, 0x0101, header_size, len(payload), 0, 0,
                       minor, major, arch, 0, 0, flags)
    head += b"\0" * (header_size - len(head))
    return head + payload


def container(*entries):
    body = b"".join(entries)
    return struct.pack("<IHHQ", vllm_fatbin.MAGIC, 1, 16, len(body)) + body


def pad8(data):
    return data + b"\0" * (-len(data) % 8)


def elf_with_section(name, content):
    """A minimal ELF64 LE file: header, the section's bytes, .shstrtab, section headers."""
    shstr = b"\0" + name.encode() + b"\0.shstrtab\0"
    data_off = 64
    str_off = data_off + len(content)
    sh_off = (str_off + len(shstr) + 7) // 8 * 8
    ident = b"\x7fELF" + bytes([2, 1, 1, 0x41, 8]) + b"\0" * 7
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 0xBE, 1, 0, 0, sh_off, 0, 64, 0, 0, 64, 3, 2)
    def sh(name_off, offset, size):
        return struct.pack("<IIQQQQIIQQ", name_off, 1, 0, 0, offset, size, 0, 0, 8, 0)
    body = header + content + shstr
    body += b"\0" * (sh_off - len(body))
    body += b"\0" * 64 + sh(1, data_off, len(content)) + sh(len(name) + 2, str_off, len(shstr))
    return body


def test_arch_names_from_flags():
    assert vllm_fatbin.arch_name(2, 90, 0x100011) == "sm_90a"
    assert vllm_fatbin.arch_name(2, 100, 0x1200011) == "sm_100f"
    assert vllm_fatbin.arch_name(2, 86, 0x8011) == "sm_86"
    assert vllm_fatbin.arch_name(1, 120, 0x8011) == "compute_120"
    assert vllm_fatbin.arch_name(1, 90, 0x108011) == "compute_90a"


def test_parse_one_container_of_sass_and_ptx():
    data = container(entry(2, 75), entry(2, 86), entry(2, 90, 0x100011),
                     entry(2, 100, 0x1200011, header_size=112), entry(1, 120, 0x8011, header_size=80))
    entries = parse_fatbin(data)
    assert [e["name"] for e in entries] == ["sm_75", "sm_86", "sm_90a", "sm_100f", "compute_120"]
    assert entries[-1]["kind"] == "ptx" and entries[-1]["compressed"] and entries[-1]["version"] == "9.0"
    assert entries[0]["kind"] == "sass" and not entries[0]["compressed"] and entries[0]["version"] == "1.8"


def test_several_containers_with_padding_between():
    first = pad8(container(entry(2, 80, payload=b"x" * 13)))
    second = container(entry(2, 120), entry(1, 80))
    data = b"\0" * 8 + first + b"\0" * 16 + second + b"\0" * 8
    assert sort_archs(e["name"] for e in parse_fatbin(data)) == ["sm_80", "sm_120", "compute_80"]


def test_truncated_or_garbled_fatbin_raises():
    data = container(entry(2, 80))
    with pytest.raises(FatbinError):
        parse_fatbin(data[:-4])
    garbled = bytearray(data)
    garbled[16:18] = struct.pack("<H", 7)  # kind 7 is neither PTX nor ELF
    with pytest.raises(FatbinError):
        parse_fatbin(bytes(garbled))


def test_no_magic_means_no_entries():
    assert parse_fatbin(b"\0" * 64 + b"not a fatbin") == []


def test_sort_archs():
    assert sort_archs(["compute_120", "sm_120", "sm_90a", "sm_90", "sm_100f", "sm_75", "sm_90"]) == \
        ["sm_75", "sm_90", "sm_90a", "sm_100f", "sm_120", "compute_120"]


def test_archs_of_file_reads_the_nv_fatbin_section(tmp_path):
    fat = container(entry(2, 75), entry(2, 80), entry(2, 86), entry(2, 90), entry(2, 100, header_size=112),
                    entry(2, 120, header_size=112))
    path = tmp_path / "libfake.so"
    path.write_bytes(elf_with_section(".nv_fatbin", fat))
    assert archs_of_file(str(path)) == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    stats = vllm_fatbin.library_archs(str(path))
    assert stats["build_archs"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert stats["containers"] == 1


def test_build_archs_are_the_most_common_container_set(tmp_path):
    common = [entry(2, 80), entry(2, 90)]
    fat = pad8(container(*common)) + pad8(container(*common)) + container(entry(2, 90, 0x100011))
    path = tmp_path / "lib.so"
    path.write_bytes(elf_with_section(".nv_fatbin", fat))
    stats = vllm_fatbin.library_archs(str(path))
    assert stats["build_archs"] == ["sm_80", "sm_90"]
    assert stats["all_archs"] == ["sm_80", "sm_90", "sm_90a"]
    assert stats["containers"] == 3 and stats["entries"] == 5


def test_library_without_fatbin(tmp_path):
    path = tmp_path / "libplain.so"
    path.write_bytes(elf_with_section(".text", b"\x90" * 16))
    assert archs_of_file(str(path)) == []
    assert vllm_fatbin.library_archs(str(path))["containers"] == 0


def test_not_an_elf_file(tmp_path):
    path = tmp_path / "x.so"
    path.write_bytes(b"MZ" + b"\0" * 100)
    with pytest.raises(FatbinError):
        archs_of_file(str(path))
