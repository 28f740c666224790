#!/usr/bin/env python3
"""The design's size alone, fast (docs/intl.md, "Every CLDR locale: the measured design"): the chunks of a /stdlib
archive grouped as bench/intl-all-locales.mjs's second line (a code chunk alone, the zones one group, a family's data
one group per language), each group raw LZMA2 at preset 9 | extreme with a dictionary the size of the group: the same
liblzma and settings as that script's `xz`, in process (about a minute for the all-locales archive, against over ten
for the script's thousands of xz and zstd runs).

    python3 bench/intl-lzma/design-size.py ARCHIVE
"""
import collections, lzma, re, struct, sys, tarfile

def chunks(path):
    """name -> bytes: the intl/<chunk>.qbc members, or the chunks of an archive stored in groups (intl/index)."""
    with tarfile.open(path) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    if "intl/index" not in members:
        return {n[5:-4]: b for n, b in members.items() if n.startswith("intl/") and n.endswith(".qbc")}
    ix = members["intl/index"]
    width, ngroups, nchunks = struct.unpack_from("<III", ix, 4)
    name = lambda at: ix[at:at + width].rstrip(b"\0").decode()
    raw = []
    for g in range(ngroups):
        at = 16 + g * (width + 8)
        size, method = struct.unpack_from("<II", ix, at + width)
        if method == 0:
            raw.append(members[f"intl/{name(at)}.bin"])
        else:
            dict_size = max(4096, 1 << (max(size, 1) - 1).bit_length())
            raw.append(lzma.decompress(members[f"intl/{name(at)}.xz"], format=lzma.FORMAT_RAW,
                                       filters=[{"id": lzma.FILTER_LZMA2, "dict_size": dict_size}]))
    out = {}
    for c in range(nchunks):
        at = 16 + ngroups * (width + 8) + c * (width + 12)
        g, offset, length = struct.unpack_from("<III", ix, at + width)
        out[name(at)] = raw[g][offset:offset + length]
    return out

groups = collections.OrderedDict()
for name, data in sorted(chunks(sys.argv[1]).items(), key=lambda c: f"intl/{c[0]}.qbc"):
    d = re.match(r"data-([a-z]+)-([a-z]+)", name)
    key = (d.group(1), d.group(2)) if d else ("tz", "") if name.startswith("tz") else ("code", name)
    groups.setdefault(key, []).append(data)
total = largest = 0
for chunks in groups.values():
    data = b"".join(chunks)
    largest = max(largest, len(data))
    dict_size = min(64 << 20, max(4096, 1 << (max(len(data), 1) - 1).bit_length()))
    total += len(lzma.compress(data, format=lzma.FORMAT_RAW, filters=[
        {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": dict_size}]))
print(f"{len(groups)} groups, {total:,} bytes ({total / 1024:,.1f} KiB) xz; largest group {largest:,} bytes raw")
