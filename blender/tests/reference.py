"""The reference path the add-on is held to: Blender's own glTF exporter with every
influence, then the ``dashvertex`` command (``reduce --normalize unit``), and readers
for the DashVertex JSON both paths write."""

import json
import os
import shutil
import subprocess

import bpy
import numpy as np


def cli():
    """Path of the ``dashvertex`` binary: ``$DASH_BIN_DIR/dashvertex``, else the
    repository's target/debug or target/release build. Raises when there is none."""
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    candidates = []
    if os.environ.get("DASH_BIN_DIR"):
        candidates.append(os.path.join(os.environ["DASH_BIN_DIR"], "dashvertex"))
    candidates += [os.path.join(repo, "target", d, "dashvertex") for d in ("debug", "release")]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("dashvertex")
    if found:
        return found
    raise RuntimeError("no dashvertex binary: build it (cargo build --bin dashvertex) or set DASH_BIN_DIR")


def gltf_export(obj, path):
    """Blender's glTF export of `obj` and its armature with every bone influence."""
    arm = obj.modifiers["Armature"].object
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    arm.select_set(True)
    bpy.ops.export_scene.gltf(filepath=path, export_format="GLB", use_selection=True,
                              export_all_influences=True, export_animations=False)
    return path


def reduce(source, output, max_influences, manifest=None, locked=False, mesh=None, primitive=None):
    """``dashvertex reduce SOURCE -o OUTPUT --max-influences K --normalize unit``
    (with the manifest, ``--locked``, ``--mesh``/``--primitive`` when given);
    returns the completed process."""
    cmd = [cli(), "reduce", source, "-o", output, "-q", "--max-influences", str(max_influences),
           "--normalize", "unit"]
    if manifest:
        cmd += ["--manifest", manifest]
    if locked:
        cmd.append("--locked")
    if mesh is not None:
        cmd += ["--mesh", str(mesh), "--primitive", str(primitive)]
    return subprocess.run(cmd, capture_output=True, text=True)


def gltf_primitives(path):
    """Number of primitives of mesh 0 of the glTF/GLB at `path` (read by dashvertex)."""
    import dashvertex

    return sum(1 for p in dashvertex.read(path).primitives if p.mesh == 0)


def load(path):
    """A DashVertex JSON file as ``(positions (n, 3), [{bone name: weight}] per vertex,
    bones)``; bones is the file's bone list (name, parent index, rest pose)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    bones = doc.get("bone", [])
    names = [b["name"] for b in bones]
    pos = np.array([[v["x"], v["y"], v["z"]] for v in doc["vertex"]], dtype=np.float64)
    influences = []
    for v in doc["vertex"]:
        sets = [(v.get("skinIndex", []), v.get("skinWeight", []))]
        for extra in v.get("skinSets", []) or []:
            sets.append((extra.get("skinIndex", []), extra.get("skinWeight", [])))
        row = {}
        for idx, ws in sets:
            for i, w in zip(idx, ws):
                if w:
                    row[names[i]] = w
        influences.append(row)
    return pos, influences, bones


def match_vertices(reference_positions, positions):
    """For each row of `reference_positions`, the index of the row of `positions` at the
    same point (exact float32 equality); raises when one is missing."""
    key = {tuple(np.float32(p)): i for i, p in enumerate(positions)}
    out = []
    for p in reference_positions:
        i = key.get(tuple(np.float32(p)))
        if i is None:
            raise AssertionError(f"no vertex at {p}")
        out.append(i)
    return np.array(out)
