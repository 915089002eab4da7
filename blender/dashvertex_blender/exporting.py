# SPDX-License-Identifier: GPL-3.0-or-later
"""`export`: a mesh to DashVertex JSON or DMX through ``dashvertex reduce``.

The mesh is first written, in memory, as the GLB Blender's glTF exporter writes for it
with every influence (+Y up, the armature's joints with their rest transforms and inverse
bind matrices, the exporter's sorted and normalized weights, its neutral bone); that file
then goes through ``dashvertex.reduce_file`` — the reduce job of the ``dashvertex``
command — so the manifest, the reduction, the skeleton and the writers are dash's own.
"""

import os
import tempfile

from . import exporter_view, glb, runtime


def exporter_glb(obj, dense=None):
    """GLB bytes of what the glTF exporter ("Include All Bone Influences") writes for the
    skinning of mesh object `obj`: one primitive holding every vertex of the mesh."""
    view = exporter_view.gather(obj, dense)
    if view.positions.shape[0] == 0:
        raise exporter_view.NotSkinned(f"{obj.name!r} has no vertices")
    joints, weights = exporter_view.exporter_influences(view)
    return glb.encode(obj.name, view.positions, view.skin, joints, weights)


def export(obj, filepath, manifest_path="", max_influences=4, locked=False):
    """Write mesh object `obj` to `filepath` (DashVertex JSON, or DMX for ``.dmx``):
    per vertex the bones and weights of ``dashvertex reduce --max-influences K
    --normalize unit [--manifest M [--locked]]`` on the glTF export of `obj`. The
    manifest is created when missing and gains new bones unless `locked`, which refuses
    them (``dashvertex.DashError``) and writes nothing. Returns the
    ``dashvertex.JobResult`` of ``dashvertex.reduce_file`` (its messages: what the
    command would print, the neutral-bone warning included)."""
    dv = runtime.dashvertex()
    if not hasattr(dv, "reduce_file"):
        raise runtime.MissingPackage(
            f"dashvertex {getattr(dv, '__version__', '?')} has no reduce_file: the export "
            "needs a dashvertex package with reduce_file (the reduce job of the command)")
    data = exporter_glb(obj)
    options = {"max_influences": max_influences, "normalize": "unit", "locked": locked}
    if manifest_path:
        options["manifest"] = os.path.abspath(os.path.expanduser(manifest_path))
    with tempfile.TemporaryDirectory(prefix="dashvertex-blender-") as folder:
        source = os.path.join(folder, f"{_safe(obj.name)}.glb")
        with open(source, "wb") as f:
            f.write(data)
        return dv.reduce_file(source, os.path.abspath(filepath), **options)


def _safe(name):
    """`name` with every character that is not a letter, digit, '-' or '_' replaced."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "mesh"
