"""Makes a real Blender export for the peer benchmark: a dense skinned cylinder with 16
bone influences per vertex, written by Blender's own glTF exporter (what users run dash on).

  blender -b --factory-startup --python-exit-code 1 --python benches/blender_export.py -- \
      OUT.glb [RINGS] [SEGMENTS] [BONES] [FRAMES]

Defaults: 1,800 rings x 1,936 segments (about 3.5 M vertices) and 48 bones in a chain
along the cylinder. Every vertex belongs to the 16 bones nearest its height, weights
falling off with rank; the groups are filled in batches (one call per bone and rank) so a
3.5 M-vertex mesh takes seconds, not hours. The export keeps every influence
(`export_all_influences`), with normals and UVs, as a character export would:
`python3 benches/peers.py --shape OUT.glb` then measures dash and its peers on it.
With FRAMES (default 0: no animation), an action of that many frames bends every bone of
the chain about X and Y by up to 25 degrees, keyed at every frame (what `reduce --fit` and
the loss report play).
An OUT ending in `.fbx` is written by Blender's FBX exporter instead (binary 7.4, every
frame baked, no leaf bones): the same character as most arrive, which `dashvertex`
converts on reading (`fixtures/fbx/animated_rig.fbx` is `-- OUT.fbx 24 12 16 20`).
"""
import sys

import bpy
import numpy as np

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if not argv:
    sys.exit("usage: blender -b --python benches/blender_export.py -- OUT.glb [RINGS] [SEGMENTS] [BONES]")
out = argv[0]
rings = int(argv[1]) if len(argv) > 1 else 1800
segments = int(argv[2]) if len(argv) > 2 else 1936
bones = int(argv[3]) if len(argv) > 3 else 48
frames = int(argv[4]) if len(argv) > 4 else 0
influences = 16
height = 2.0

bpy.ops.wm.read_factory_settings(use_empty=True)

# The mesh: rings of vertices up the z axis, quads between neighbouring rings.
angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
z = np.linspace(0.0, height, rings)
xs = np.tile(np.cos(angle) * 0.2, rings)
ys = np.tile(np.sin(angle) * 0.2, rings)
zs = np.repeat(z, segments)
co = np.column_stack([xs, ys, zs]).astype(np.float32).ravel()
r = np.arange(rings - 1)[:, None]
s = np.arange(segments)[None, :]
a = r * segments + s
b = r * segments + (s + 1) % segments
quads = np.stack([a, b, b + segments, a + segments], axis=-1).reshape(-1, 4)

mesh = bpy.data.meshes.new("body")
mesh.vertices.add(rings * segments)
mesh.vertices.foreach_set("co", co)
mesh.loops.add(quads.size)
mesh.loops.foreach_set("vertex_index", quads.ravel().astype(np.int32))
mesh.polygons.add(len(quads))
mesh.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
mesh.polygons.foreach_set("loop_total", np.full(len(quads), 4, dtype=np.int32))
mesh.polygons.foreach_set("use_smooth", np.ones(len(quads), dtype=bool))
uv = mesh.uv_layers.new(name="UVMap")
loop_vertex = quads.ravel()
uvs = np.column_stack([
    (loop_vertex % segments) / segments,
    (loop_vertex // segments) / max(rings - 1, 1),
]).astype(np.float32).ravel()
uv.data.foreach_set("uv", uvs)
mesh.update()
mesh.validate()
body = bpy.data.objects.new("body", mesh)
bpy.context.scene.collection.objects.link(body)

# The armature: a chain of bones along the cylinder.
arm_data = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="EDIT")
parent = None
for i in range(bones):
    bone = arm_data.edit_bones.new(f"bone_{i:02d}")
    bone.head = (0.0, 0.0, height * i / bones)
    bone.tail = (0.0, 0.0, height * (i + 1) / bones)
    if parent is not None:
        bone.parent = parent
        bone.use_connect = True
    parent = bone
bpy.ops.object.mode_set(mode="OBJECT")
body.parent = rig
modifier = body.modifiers.new("Armature", "ARMATURE")
modifier.object = rig

# Weights: the 16 bones nearest each ring's height, by rank; one group call per bone and
# rank, over every vertex that has that bone at that rank.
rank_weight = 1.0 / (1.0 + np.arange(influences) ** 2)
rank_weight = rank_weight / rank_weight.sum()
groups = [body.vertex_groups.new(name=f"bone_{i:02d}") for i in range(bones)]
centre = np.minimum((z / height * bones).astype(int), bones - 1)
offsets = np.array(sorted(range(-influences // 2, influences // 2), key=abs))
for k, off in enumerate(offsets):
    bone_of_ring = np.clip(centre + off, 0, bones - 1)
    # Rings where the clip made two ranks name one bone keep the first rank only.
    for g in range(bones):
        ring_ids = np.nonzero(bone_of_ring == g)[0]
        if len(ring_ids) == 0:
            continue
        verts = (ring_ids[:, None] * segments + np.arange(segments)[None, :]).ravel()
        groups[g].add(verts.tolist(), float(rank_weight[k]), "ADD")

# The action: each bone bends about X and Y with a phase of its own, keyed at every frame.
if frames > 0:
    import math
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    for f in range(1, frames + 1):
        t = (f - 1) / max(frames - 1, 1)
        for i, pb in enumerate(rig.pose.bones):
            pb.rotation_mode = "XYZ"
            pb.rotation_euler = (
                math.radians(25.0) * math.sin(2.0 * math.pi * t + 0.4 * i),
                math.radians(25.0) * math.cos(2.0 * math.pi * t + 0.7 * i) * 0.5,
                0.0,
            )
            pb.keyframe_insert("rotation_euler", frame=f)

if out.lower().endswith(".fbx"):
    bpy.ops.export_scene.fbx(
        filepath=out,
        object_types={"ARMATURE", "MESH"},
        add_leaf_bones=False,
        bake_anim=frames > 0,
        bake_anim_use_all_actions=False,
        bake_anim_use_nla_strips=False,
        bake_anim_simplify_factor=0.0,
        use_selection=False,
    )
else:
    bpy.ops.export_scene.gltf(
        filepath=out,
        export_format="GLB",
        export_skins=True,
        export_all_influences=True,
        export_normals=True,
        export_texcoords=True,
        export_materials="NONE",
        export_animations=frames > 0,
        use_selection=False,
    )

print(f"wrote {out}: {rings * segments} mesh vertices, {bones} bones, {influences} influences, {frames} frames")
