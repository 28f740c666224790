#!/usr/bin/env python3
"""The JavaScript engine's /stdlib archives (scripts/engines/javascript.sh; docs/intl.md, "How they are stored").

    archive.py chunks WORK MANIFEST   WORK/c/<chunk>.c (what the native qjsc wrote) -> WORK/stdlib.tar, in the groups
                                      of build.mjs's MANIFEST (its `groups`), with intl/index
    archive.py combine OUT IN...      the members of the IN archives (the Intl chunks, ICU's data) -> OUT, refusing a
                                      name that two of them hold

Every archive is a ustar archive with sorted names, no dates or owners and read-only modes: the same inputs give the
same bytes (the boot images and the engine's build identity hash them).
"""
import io
import json
import lzma
import pathlib
import re
import struct
import sys
import tarfile

# An LZMA2 group over 1 MiB is cut into parts of at most 1 MiB (<group>-1, -2, ...; a larger chunk is a part alone): a
# load decodes its part up to its chunk, not the whole group (the all-locales archive's largest group is 3.5 MB).
PART_BYTES = 1 << 20


def write_tar(path, members):
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(members[name]), 0, 0o444
            info.uid, info.gid, info.uname, info.gname = 0, 0, "", ""
            tar.addfile(info, io.BytesIO(members[name]))


def chunks(work, manifest):
    """A group is intl/<group>.xz, one raw LZMA2 stream (preset 9 | extreme, a dictionary the size of the group:
    deterministic), or intl/<group>.bin, stored; intl/index says where each chunk is (driver.c reads it):
      "SWI1", u32 width, u32 groups, u32 chunks (little-endian), then per group: name (width bytes, NUL-padded),
      u32 raw size, u32 method (0 stored, 1 LZMA2); then per chunk, sorted by name: name, u32 group, u32 offset,
      u32 length (in the group's raw bytes)."""
    work = pathlib.Path(work)
    groups = json.loads(pathlib.Path(manifest).read_text())["groups"]

    def chunk(name):  # the bytes of the C array qjsc wrote
        body = (work / "c" / f"{name}.c").read_text().split("{", 1)[1].split("}", 1)[0]
        return bytes.fromhex(re.sub(r"0x|[,\s]", "", body))

    def parts(method, names):
        out, size = [[]], 0
        for name in names:
            b = chunk(name)
            if method != "stored" and out[-1] and size + len(b) > PART_BYTES:
                out, size = out + [[]], 0
            out[-1].append((name, b))
            size += len(b)
        return out

    members, group_table, chunk_table = {}, [], []
    for group, method, names in groups:
        cut = parts(method, names)
        for i, part in enumerate(cut):
            g, offset = group if len(cut) == 1 else f"{group}-{i + 1}", 0
            for name, b in part:
                chunk_table.append((name, len(group_table), offset, len(b)))
                offset += len(b)
            raw = b"".join(b for _, b in part)
            dict_size = max(4096, 1 << (max(len(raw), 1) - 1).bit_length())
            if method == "stored":
                members[f"intl/{g}.bin"] = raw
            else:
                members[f"intl/{g}.xz"] = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=[
                    {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": dict_size}])
            group_table.append((g, len(raw), 0 if method == "stored" else 1))
    names = [n for n, *_ in chunk_table] + [g for g, *_ in group_table]
    if len(set(n for n, *_ in chunk_table)) != len(chunk_table) or len(list(work.glob("c/*.c"))) != len(chunk_table):
        sys.exit("intl: the manifest's groups do not list every chunk once")
    width = (max(len(n) for n in names) + 4) // 4 * 4
    if width > 64:
        sys.exit("intl: a chunk name is over 63 bytes (driver.c reads at most 64)")

    def pad(n):
        return n.encode().ljust(width, b"\0")

    index = b"SWI1" + struct.pack("<III", width, len(group_table), len(chunk_table))
    index += b"".join(pad(g) + struct.pack("<II", size, method) for g, size, method in group_table)
    index += b"".join(pad(n) + struct.pack("<III", g, o, l) for n, g, o, l in sorted(chunk_table, key=lambda c: pad(c[0])))
    members["intl/index"] = index
    write_tar(work / "stdlib.tar", members)


def combine(out, *sources):
    members = {}
    for src in sources:
        with tarfile.open(src) as t:
            for m in t.getmembers():
                if m.isfile():
                    if m.name in members:
                        sys.exit(f"stdlib: {m.name} is in both archives")
                    members[m.name] = t.extractfile(m).read()
    write_tar(out, members)


if __name__ == "__main__":
    commands = {"chunks": chunks, "combine": combine}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
