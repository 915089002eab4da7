#!/usr/bin/env python3
"""Builds the binary conformance vectors with Python's struct module.

This is a second, independent writer of the layout in spec/dashvertex.md §10: the Rust
decoders are tested against bytes that no Rust code produced. Run it from this folder:
`python3 make_vectors.py`; it rewrites the .dmx/.raw files here deterministically.
"""
import struct

def header(minor=0, skinned=1, major=2, magic=b"DMX\0"):
    return magic + struct.pack("<III", major, minor, skinned)

def row(tag, count=0, offset=0, length=0):
    return tag + struct.pack("<III", count, offset, length)

def vert(index, pos, joints=(0, 0, 0, 0), weights=(0.0, 0.0, 0.0, 0.0)):
    return struct.pack("<I3f4I4f", index, *pos, *joints, *weights)

def compact(index, pos):
    return struct.pack("<I3f", index, *pos)

def vset(joints, weights):
    return struct.pack("<4I4f", *joints, *weights)

def bone(name, index, parent, pos=(0, 0, 0), rot=(0, 0, 0, 1), scale=(1, 1, 1), raw_name=None):
    field = raw_name if raw_name is not None else name.encode() + b"\0" * (32 - len(name.encode()))
    assert len(field) == 32
    return field + struct.pack("<II3f4f3f", index, parent, *pos, *rot, *scale)

def pad16(b):
    return b + b"\0" * (-len(b) % 16)

DMX = [b"TEX\0", b"MAT\0", b"VERT", b"FACE", b"SKEL", b"ANIM"]

def container(sections, minor=0, skinned=1, extra_rows=(), order=None, head=None):
    """sections: {tag: (count, bytes)}; rows in DMX order then extra_rows."""
    tags = list(order) if order else DMX + [t for t in extra_rows]
    table_end = 16 + 16 * len(tags)
    body = b""
    rows = b""
    pos = table_end
    for t in tags:
        if t in sections and len(sections[t][1]) > 0:
            count, data = sections[t]
            pos = (pos + 15) // 16 * 16
            off = pos
            rows += row(t, count, off, len(data))
            pos += len(data)
        else:
            count = sections.get(t, (0, b""))[0]
            rows += row(t, count, 0, 0)
    out = bytearray((head or header(minor, skinned)) + rows)
    for t in tags:
        if t in sections and len(sections[t][1]) > 0:
            off = struct.unpack_from("<I", rows, 16 * tags.index(t) + 8)[0]
            out += b"\0" * (off - len(out))
            out += sections[t][1]
    return bytes(out)

def write(name, data):
    with open(name, "wb") as f:
        f.write(data)

# The example skin: three vertices, three bones.
V = [
    vert(0, (0.0, 0.0, 0.0), (0, 1, 0, 0), (0.5, 0.5, 0.0, 0.0)),
    vert(1, (0.0, 1.0, 0.0), (1, 2, 0, 0), (0.25, 0.75, 0.0, 0.0)),
    vert(2, (0.0, 2.0, 0.0), (2, 0, 0, 0), (1.0, 0.0, 0.0, 0.0)),
]
B = [
    bone("root", 0, 0),
    bone("spine", 1, 0, pos=(0, 1, 0)),
    bone("head", 2, 1, pos=(0, 1, 0)),
]
verts = b"".join(V)
bones = b"".join(B)

write("valid-skinned.dmx", container({b"VERT": (3, verts), b"SKEL": (3, bones)}))
write("valid-unskinned-compact.dmx", container(
    {b"VERT": (2, compact(0, (1, 2, 3)) + compact(1, (4, 5, 6)))}, minor=1, skinned=0))
write("valid-multiset.dmx", container({
    b"VERT": (2, vert(0, (0, 0, 0), (0, 1, 2, 3), (0.3, 0.2, 0.15, 0.1)) + vert(1, (1, 0, 0), (1, 0, 0, 0), (1, 0, 0, 0))),
    b"VSET": (2, vset((4, 5, 0, 0), (0.15, 0.1, 0, 0)) + vset((0, 0, 0, 0), (0, 0, 0, 0))),
}, minor=1, extra_rows=[b"VSET"]))
write("valid-foreign-sections.dmx", container({
    b"VERT": (3, verts),
    b"MAT\0": (1, b"M" * 144),
    b"FACE": (1, bytes(range(92))),
    b"ANIM": (1, b"\x01" * 48),
    b"XTRA": (2, b"opaque-bytes-kept-as-is"),
}, extra_rows=[b"XTRA"]))
write("valid-raw.raw", verts)
write("raw-empty.raw", b"")
# A DMX v2 reader's seven-row file with every row empty but VERT.
write("valid-index-mismatch.dmx", container({b"VERT": (2, vert(7, (0, 0, 0)) + vert(7, (1, 1, 1)))}, skinned=0))

# Invalid files (the offsets are the ones spec §10.3 assigns).
ok = container({b"VERT": (3, verts), b"SKEL": (3, bones)})
write("invalid-too-short.dmx", ok[:10])
write("invalid-bad-magic.dmx", b"DMY\0" + ok[4:])
write("invalid-version.dmx", ok[:4] + struct.pack("<I", 3) + ok[8:])
write("invalid-skinned-flag.dmx", ok[:12] + struct.pack("<I", 2) + ok[16:])
write("invalid-truncated-table.dmx", ok[:16 + 16 * 3 + 5])
write("invalid-truncated-section.dmx", ok[:-10])
# VERT row (row 3, at 0x30): count 4 with the length of 3 records.
bad = bytearray(ok); struct.pack_into("<I", bad, 0x30 + 4, 4); write("invalid-stride.dmx", bytes(bad))
# VERT claims 4 billion vertices in a ~100-byte file.
huge = header() + b"".join(row(t) for t in DMX[:2]) + row(b"VERT", 4_000_000_000, 0x70, 0xFFFFFFF0) + b"".join(row(t) for t in DMX[3:]) + b"\0" * 4
write("invalid-4-billion-vertices.dmx", huge)
# Same claim with a consistent length: refused by the bounds check.
huge2 = header() + b"".join(row(t) for t in DMX[:2]) + row(b"VERT", 0x5555555, 0x70, 0x5555555 * 48) + b"".join(row(t) for t in DMX[3:]) + b"\0" * 4
write("invalid-vertices-beyond-eof.dmx", huge2)
# VERT row's offset moved past the end: reported at that row (phase A), not as a zero-tag
# row when the table runs on into the section data (spec §10.3).
bad = bytearray(ok); struct.pack_into("<I", bad, 0x30 + 8, 0x10000); write("invalid-vert-offset-past-end.dmx", bytes(bad))
# SKEL section overlapping VERT.
bad = bytearray(ok); vert_off = struct.unpack_from("<I", ok, 0x38)[0]
struct.pack_into("<I", bad, 0x50 + 8, vert_off + 48); write("invalid-overlap.dmx", bytes(bad))
write("invalid-duplicate-tag.dmx", container({b"VERT": (3, verts)}, order=[b"TEX\0", b"VERT", b"VERT"]))
write("invalid-missing-vert.dmx", container({b"SKEL": (3, bones)}, order=[b"TEX\0", b"MAT\0", b"SKEL"]))
write("invalid-section-in-table.dmx", header() + row(b"VERT", 1, 0x18, 48) + b"\0" * 48)
write("invalid-table-mid-row.dmx", header() + row(b"VERT", 1, 0x28, 48) + b"\0" * 56)
write("invalid-zero-tag-row.dmx", header() + row(b"VERT", 0, 0, 0) + row(b"\0\0\0\0", 1, 0, 0))
unterminated = [bone("root", 0, 0), bone("", 1, 0, raw_name=b"x" * 32)]
write("invalid-name-not-terminated.dmx", container({b"VERT": (3, verts), b"SKEL": (2, b"".join(unterminated))}))
notutf8 = [bone("root", 0, 0), bone("", 1, 0, raw_name=b"ab\xff\xfe" + b"\0" * 28)]
write("invalid-name-not-utf8.dmx", container({b"VERT": (3, verts), b"SKEL": (2, b"".join(notutf8))}))
trailing = [bone("root", 0, 0), bone("", 1, 0, raw_name=b"arm\0junk" + b"\0" * 24)]
write("invalid-name-trailing.dmx", container({b"VERT": (3, verts), b"SKEL": (2, b"".join(trailing))}))
write("invalid-vset-count.dmx", container({
    b"VERT": (2, vert(0, (0, 0, 0)) + vert(1, (1, 0, 0))),
    b"VSET": (3, vset((0,) * 4, (0,) * 4) * 3),
}, minor=1, extra_rows=[b"VSET"]))
write("invalid-raw-truncated.raw", verts + b"\0" * 20)
write("invalid-not-dashvertex.bin", b"\x89PNG\r\n\x1a\n" + b"\0" * 40)

# Validation vectors (decode fine, break a validation rule); written to ../validate/.
import math
def vwrite(name, data):
    write("../validate/" + name, data)

vwrite("vertex-index.dmx", container({b"VERT": (2, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)) + vert(5, (1, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (1, bone("root", 0, 0))}))
vwrite("position-non-finite.dmx", container({b"VERT": (2, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)) + vert(1, (math.inf, 0, math.nan), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (1, bone("root", 0, 0))}))
vwrite("weight-non-finite.dmx", container({b"VERT": (2, vert(0, (0, 0, 0), (0, 1, 0, 0), (math.nan, 1, 0, 0)) + vert(1, (1, 0, 0), (1, 0, 0, 0), (math.inf, 0, 0, 0))), b"SKEL": (2, bone("root", 0, 0) + bone("b", 1, 0))}))
vwrite("skinned-flag.dmx", container({b"VERT": (2, vert(0, (0, 0, 0)) + vert(1, (1, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)))}, skinned=0))
vwrite("bone-record-index.dmx", container({b"VERT": (1, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (2, bone("root", 0, 0) + bone("b", 9, 0))}))
vwrite("bone-transform-non-finite.dmx", container({b"VERT": (1, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (2, bone("root", 0, 0) + bone("b", 1, 0, rot=(0, 0, math.nan, 1)))}))
vwrite("bone-root-binary.dmx", container({b"VERT": (1, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (2, bone("root", 0, 0) + bone("b", 1, 0xFFFFFFFF))}))
vwrite("unreferenced-bytes.dmx", container({b"VERT": (1, vert(0, (0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0))), b"SKEL": (1, bone("root", 0, 0))}) + b"\0\0\x07\x07")
vwrite("multiset-binary.dmx", container({
    b"VERT": (2, vert(0, (0, 0, 0), (0, 1, 2, 3), (0.25, 0.25, 0.2, 0.1)) + vert(1, (1, 0, 0), (1, 0, 0, 0), (0.5, 0, 0, 0))),
    b"VSET": (2, vset((4, 0, 0, 0), (0.2, 0, 0, 0)) + vset((2, 0, 0, 0), (0.5, 0, 0, 0))),
    b"SKEL": (5, b"".join(bone(n, i, max(i - 1, 0)) for i, n in enumerate(["a", "b", "c", "d", "e"]))),
}, minor=1, extra_rows=[b"VSET"]))
vwrite("raw-skinned.raw", vert(0, (0, 0, 0), (0, 3, 0, 0), (0.5, 0.5, 0, 0)) + vert(1, (1, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)))
