#!/usr/bin/env python3
"""The design's size alone, fast (docs/intl.md, "Every CLDR locale: the measured design"): the chunks of a /stdlib
archive grouped as bench/intl-all-locales.mjs's second line (a code chunk alone, the zones one group, a family's data
one group per language), each group raw LZMA2 at preset 9 | extreme with a dictionary the size of the group: the same
liblzma and settings as that script's `xz`, in process (about a minute for the all-locales archive, against over ten
for the script's thousands of xz and zstd runs).

    python3 bench/intl-lzma/design-size.py ARCHIVE
"""
import collections, lzma, re, sys, tarfile

groups = collections.OrderedDict()
with tarfile.open(sys.argv[1]) as tar:
    for m in sorted(tar.getmembers(), key=lambda m: m.name):
        if not (m.isfile() and m.name.startswith("intl/")):
            continue
        name = m.name[5:-4]
        d = re.match(r"data-([a-z]+)-([a-z]+)", name)
        key = (d.group(1), d.group(2)) if d else ("tz", "") if name.startswith("tz") else ("code", name)
        groups.setdefault(key, []).append(tar.extractfile(m).read())
total = largest = 0
for chunks in groups.values():
    data = b"".join(chunks)
    largest = max(largest, len(data))
    dict_size = min(64 << 20, max(4096, 1 << (max(len(data), 1) - 1).bit_length()))
    total += len(lzma.compress(data, format=lzma.FORMAT_RAW, filters=[
        {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": dict_size}]))
print(f"{len(groups)} groups, {total:,} bytes ({total / 1024:,.1f} KiB) xz; largest group {largest:,} bytes raw")
