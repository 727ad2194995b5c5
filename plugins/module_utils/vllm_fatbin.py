# -*- coding: utf-8 -*-
"""Which GPU architectures a CUDA shared library carries kernels for, read from its ELF fatbins.

Pure Python (stdlib only). Used by ``scripts/check-compat-metadata --read-archs`` on the shared
libraries of real wheels (torch's ``libtorch_cuda.so``, vLLM's ``_C_stable_libtorch.abi3.so``...)
where ``cuobjdump`` is not installed, and by its unit test on synthetic fatbins.

The layout (the same one ``cuobjdump --list-elf/--list-ptx`` reads; checked here against fatbins
written by nvcc 13.0 for sm_75..sm_121, ``a``/``f`` targets, PTX, and --compress-mode):

* an ELF64 section ``.nv_fatbin`` holds one or more fatbin containers, each 8-byte aligned:
  ``<I magic 0xBA55ED50, <H version 1, <H header size (16), <Q size of the entries``;
* each entry: ``<H kind (1 PTX, 2 ELF/cubin), <H version, <I header size (64, 80, 112...),
  <Q payload size, <I compressed size, <I -, <H minor, <H major, <I arch (75, 86, 90, 100...),
  <I name offset, <I name length, <Q flags`` then the payload; the next entry follows
  ``header size + payload size`` bytes on;
* flags 0x100000: an architecture-specific target (``sm_90a``), 0x200000: a family target
  (``sm_100f``); 0x8000 (zstd) or 0x2000 (LZ4): the payload is compressed (the header is not).

``archs_of_file(path)`` -> ["sm_75", "sm_80", ..., "compute_120"] (sorted, unique);
``library_archs(path)`` -> also the build's own target list: the architecture set that most
containers (one per compiled source file) carry, e.g. torch's TORCH_CUDA_ARCH_LIST, apart from
the few kernels built for extra targets (sm_90a, sm_100a) beside it.
"""

from __future__ import absolute_import, division, print_function

import struct

__metaclass__ = type

MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2
FLAG_ARCH_SPECIFIC = 0x100000
FLAG_FAMILY = 0x200000
FLAG_COMPRESSED = 0x8000 | 0x2000
_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQ")


class FatbinError(ValueError):
    """The bytes are not an ELF file or hold a fatbin that does not parse."""


def arch_name(kind, arch, flags):
    """(2, 90, 0x100011) -> 'sm_90a'; (1, 120, 0x11) -> 'compute_120'."""
    suffix = "a" if flags & FLAG_ARCH_SPECIFIC else ("f" if flags & FLAG_FAMILY else "")
    return "%s_%d%s" % ("compute" if kind == KIND_PTX else "sm", arch, suffix)


def _container_headers(data, start, end):
    """(offset, header size, end of its entries) of each fatbin container header in
    data[start:end]: found by magic at 8-byte aligned offsets; the next one is looked for at the
    first aligned offset after the entries."""
    offset = start
    while offset + _CONTAINER.size <= end:
        magic, _version, header_size, size = _CONTAINER.unpack_from(data, offset)
        if magic != MAGIC:
            offset += 8
            continue
        limit = offset + header_size + size
        yield offset, header_size, limit
        offset = (limit + 7) // 8 * 8


def containers(data, start=0, end=None):
    """[(offset, end)] of each fatbin container in data[start:end] (found by magic, 8-aligned)."""
    end = len(data) if end is None else end
    return [(offset, min(limit, end)) for offset, _header_size, limit in _container_headers(data, start, end)]


def parse_fatbin(data, start=0, end=None):
    """Entries of the fatbin containers in ``data[start:end]``: a list of dicts.

    Each dict: kind ('sass' or 'ptx'), arch (int, 90), name ('sm_90a'), flags, compressed,
    version ('1.8' for cubins, the PTX ISA version like '9.0' for PTX). Containers are found by
    their magic at 8-byte aligned offsets, so padding between them is skipped; an entry that runs
    past its container raises FatbinError.
    """
    end = len(data) if end is None else end
    entries = []
    for offset, header_size, limit in _container_headers(data, start, end):
        if header_size < _CONTAINER.size:
            raise FatbinError("fatbin at %#x: header size %d" % (offset, header_size))
        if limit > end:
            raise FatbinError("fatbin at %#x: %d bytes of entries run past the section"
                              % (offset, limit - offset - header_size))
        pos = offset + header_size
        while pos + _ENTRY.size <= limit:
            (kind, _ver, entry_header, payload, _csize, _u, minor, major, arch,
             _name_off, _name_len, flags) = _ENTRY.unpack_from(data, pos)
            if kind == 0 and entry_header == 0:
                break  # zero padding at the end of a container
            if kind not in (KIND_PTX, KIND_ELF) or entry_header < _ENTRY.size:
                raise FatbinError("fatbin entry at %#x: kind %d, header size %d" % (pos, kind, entry_header))
            if pos + entry_header + payload > limit:
                raise FatbinError("fatbin entry at %#x runs past its container" % pos)
            entries.append({
                "kind": "ptx" if kind == KIND_PTX else "sass",
                "arch": arch,
                "name": arch_name(kind, arch, flags),
                "flags": flags,
                "compressed": bool(flags & FLAG_COMPRESSED),
                "version": "%d.%d" % (major, minor),
            })
            pos += entry_header + payload
    return entries


def elf_sections(handle):
    """{name: (file offset, size)} of an ELF64 little-endian file open in binary mode."""
    handle.seek(0)
    ident = handle.read(64)
    if len(ident) < 64 or ident[:4] != b"\x7fELF":
        raise FatbinError("not an ELF file")
    if ident[4] != 2 or ident[5] != 1:
        raise FatbinError("only ELF64 little-endian files are read")
    shoff = struct.unpack_from("<Q", ident, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
    if shoff == 0 or shnum == 0:
        return {}
    handle.seek(shoff)
    table = handle.read(shentsize * shnum)
    headers = []
    for i in range(shnum):
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", table, i * shentsize)
        headers.append((name, offset, size))
    _n, str_off, str_size = headers[shstrndx]
    handle.seek(str_off)
    strings = handle.read(str_size)
    sections = {}
    for name, offset, size in headers:
        label = strings[name:strings.index(b"\0", name)].decode("ascii", "replace")
        sections[label] = (offset, size)
    return sections


def sort_archs(names):
    """SASS first by number then suffix, then PTX: ['sm_75', 'sm_90', 'sm_90a', 'compute_120']."""
    def key(name):
        kind, _, rest = name.partition("_")
        digits = "".join(c for c in rest if c.isdigit())
        return (kind != "sm", int(digits or 0), rest[len(digits):])
    return sorted(set(names), key=key)


def fatbin_section(path):
    """The bytes of the ``.nv_fatbin`` section of an ELF file (b"" when it has none)."""
    with open(path, "rb") as handle:
        sections = elf_sections(handle)
        if ".nv_fatbin" not in sections:
            return b""
        offset, size = sections[".nv_fatbin"]
        handle.seek(offset)
        return handle.read(size)


def archs_of_file(path):
    """The architectures of the fatbins in an ELF shared library ([] when it has none)."""
    return sort_archs(e["name"] for e in parse_fatbin(fatbin_section(path)))


def library_archs(path):
    """{build_archs, all_archs, containers, entries, ptx_versions} of one shared library.

    build_archs: the architecture set carried by the most containers (ties: the larger set);
    all_archs: every architecture of any entry.
    """
    data = fatbin_section(path)
    sets = {}
    names = []
    ptx = set()
    count = 0
    for start, end in containers(data):
        entries = parse_fatbin(data, start, end)
        count += len(entries)
        key = tuple(sort_archs(e["name"] for e in entries))
        sets[key] = sets.get(key, 0) + 1
        names.extend(key)
        ptx.update(e["version"] for e in entries if e["kind"] == "ptx")
    build = max(sets.items(), key=lambda kv: (kv[1], len(kv[0])))[0] if sets else ()
    return {
        "build_archs": list(build),
        "all_archs": sort_archs(names),
        "containers": sum(sets.values()),
        "entries": count,
        "ptx_versions": sorted(ptx),
    }
