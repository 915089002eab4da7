"""An independent glTF accessor decoder in plain Python (struct + numpy), to check
dashvertex.read against: GLB and .gltf containers, data URIs and external buffers,
byteOffset and byteStride, normalized integers, sparse accessors, accessors without a
buffer view. It shares nothing with dash's Rust decoder.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from pathlib import Path

import numpy as np

DTYPES = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class Document:
    """A glTF document and its buffers, read from a path."""

    def __init__(self, path: Path):
        data = path.read_bytes()
        self.bin = None
        if data[:4] == b"glTF":
            _, _, total = struct.unpack_from("<III", data, 0)
            pos, chunks = 12, []
            while pos + 8 <= min(total, len(data)):
                length, kind = struct.unpack_from("<II", data, pos)
                chunks.append((kind, data[pos + 8 : pos + 8 + length]))
                pos += 8 + length
            self.json = json.loads(chunks[0][1].decode("utf-8"))
            bins = [c for k, c in chunks if k == 0x004E4942]
            self.bin = bins[0] if bins else None
        else:
            self.json = json.loads(data.decode("utf-8-sig"))
        self.folder = path.parent
        self._buffers: dict[int, bytes] = {}
        self.layouts: set[str] = set()

    def buffer(self, i: int) -> bytes:
        """Buffer `i`, read when first needed (a file may name buffers nothing uses)."""
        if i not in self._buffers:
            uri = self.json["buffers"][i].get("uri")
            if uri is None:
                data = self.bin
            elif uri.startswith("data:"):
                data = base64.b64decode(uri.split(",", 1)[1])
            else:
                data = (self.folder / urllib.parse.unquote(uri)).read_bytes()
            self._buffers[i] = data
        return self._buffers[i]

    def _elements(self, view_index: int, offset: int, count: int, ctype: int, width: int) -> np.ndarray:
        view = self.json["bufferViews"][int(view_index)]
        buf = self.buffer(int(view["buffer"]))
        dtype = np.dtype(DTYPES[int(ctype)]).newbyteorder("<")
        elem = dtype.itemsize * width
        stride = int(view.get("byteStride") or elem)
        if stride != elem:
            self.layouts.add("stride")
        start = int(view.get("byteOffset", 0)) + int(offset)
        out = np.empty((count, width), dtype=dtype)
        for i in range(count):
            out[i] = np.frombuffer(buf, dtype=dtype, count=width, offset=start + i * stride)
        return out

    def accessor(self, index: int) -> tuple[np.ndarray, int, bool]:
        """The raw elements (count, width), the componentType and the normalized flag."""
        a = self.json["accessors"][index]
        # Integers may be written as 2.0 in JSON: glTF readers accept them.
        ctype, width, count = int(a["componentType"]), WIDTH[a["type"]], int(a["count"])
        if "bufferView" in a:
            values = self._elements(a["bufferView"], a.get("byteOffset", 0), count, ctype, width)
        else:
            values = np.zeros((count, width), dtype=DTYPES[ctype])
        sparse = a.get("sparse")
        if sparse:
            self.layouts.add("sparse")
            n = int(sparse["count"])
            ix = sparse["indices"]
            idx = self._elements(ix["bufferView"], ix.get("byteOffset", 0), n, ix["componentType"], 1)[:, 0]
            vals = sparse["values"]
            # Sparse values are tightly packed: no stride.
            view = self.json["bufferViews"][int(vals["bufferView"])]
            buf = self.buffer(int(view["buffer"]))
            dtype = np.dtype(DTYPES[ctype]).newbyteorder("<")
            v = np.frombuffer(buf, dtype=dtype, count=n * width,
                              offset=int(view.get("byteOffset", 0)) + int(vals.get("byteOffset", 0))).reshape(n, width)
            values = values.copy()
            for k, i in enumerate(idx.tolist()):
                values[int(i)] = v[k]
        return values, ctype, bool(a.get("normalized", False))

    def positions(self, index: int) -> np.ndarray:
        v, ctype, norm = self.accessor(index)
        return as_float(v, ctype, norm)[:, :3]

    def joints(self, index: int) -> np.ndarray:
        v, ctype, _ = self.accessor(index)
        self.layouts.add({5121: "joints-u8", 5123: "joints-u16"}[ctype])
        return v.astype(np.int64)

    def weights(self, index: int) -> np.ndarray:
        v, ctype, norm = self.accessor(index)
        self.layouts.add({5126: "weights-float", 5121: "weights-unorm8", 5123: "weights-unorm16"}[ctype])
        return as_float(v, ctype, ctype != 5126)


def as_float(v: np.ndarray, ctype: int, normalized: bool) -> np.ndarray:
    """Values as float32: normalized unsigned integers divided by 255 or 65535 in double
    precision and rounded once to float32 (the glTF rule for unsigned types)."""
    if ctype == 5126:
        return v.astype(np.float32)
    if normalized:
        scale = {5121: 255.0, 5123: 65535.0}[ctype]
        return (v.astype(np.float64) / scale).astype(np.float32)
    return v.astype(np.float32)
