"""Makes the FBX of the FBX benchmark (benches/fbx_peers.py): a skinned cylinder of about
1 M vertices on a 48-bone chain, 4 influences per vertex (raw weights, heaviest 0.4), with
an animation, written by Blender's own FBX exporter (binary 7.4).

  blender -b --factory-startup --python-exit-code 1 --python benches/make_fbx.py -- \
      OUT.fbx [RINGS] [SEGMENTS]

Defaults: 1,000 rings x 1,000 segments. The groups are filled in batches (one call per
bone and rank), so a million vertices take seconds; the export takes most of the time.
"""
import sys

import bpy
import numpy as np

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if not argv:
    sys.exit("usage: blender -b --python benches/make_fbx.py -- OUT.fbx [RINGS] [SEGMENTS]")
out = argv[0]
rings = int(argv[1]) if len(argv) > 1 else 1000
segments = int(argv[2]) if len(argv) > 2 else 1000
bones = 48
height = 2.0
bpy.ops.wm.read_factory_settings(use_empty=True)

angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
z = np.linspace(0.0, height, rings)
co = np.column_stack([
    np.tile(np.cos(angle) * 0.2, rings),
    np.tile(np.sin(angle) * 0.2, rings),
    np.repeat(z, segments),
]).astype(np.float32).ravel()
r = np.arange(rings - 1)[:, None]
s = np.arange(segments)[None, :]
a = (r * segments + s).ravel()
b = (r * segments + (s + 1) % segments).ravel()
quads = np.column_stack([a, b, b + segments, a + segments]).astype(np.int32).ravel()
mesh = bpy.data.meshes.new("Body")
n = rings * segments
mesh.vertices.add(n)
mesh.vertices.foreach_set("co", co)
faces = len(quads) // 4
mesh.loops.add(len(quads))
mesh.loops.foreach_set("vertex_index", quads)
mesh.polygons.add(faces)
mesh.polygons.foreach_set("loop_start", np.arange(0, len(quads), 4, dtype=np.int32))
mesh.polygons.foreach_set("loop_total", np.full(faces, 4, dtype=np.int32))
mesh.update()
body = bpy.data.objects.new("Body", mesh)
bpy.context.scene.collection.objects.link(body)

arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
parent = None
for i in range(bones):
    e = arm_data.edit_bones.new(f"Bone{i:02d}")
    e.head = (0.0, 0.0, height * i / bones)
    e.tail = (0.0, 0.0, height * (i + 1) / bones)
    if parent is not None:
        e.parent = parent
        e.use_connect = True
    parent = e
bpy.ops.object.mode_set(mode="OBJECT")

# Each ring belongs to the 4 bones nearest its height (ranks 0..3 weigh 0.4, 0.3, 0.2, 0.1).
groups = [body.vertex_groups.new(name=f"Bone{i:02d}") for i in range(bones)]
ring_bone = np.minimum((z / height * bones).astype(int), bones - 1)
weights = [0.4, 0.3, 0.2, 0.1]
for rank, w in enumerate(weights):
    bone_of_ring = np.clip(ring_bone + (rank + 1) // 2 * (1 if rank % 2 else -1), 0, bones - 1)
    for bone in range(bones):
        rings_here = np.nonzero(bone_of_ring == bone)[0]
        if len(rings_here) == 0:
            continue
        idx = (rings_here[:, None] * segments + np.arange(segments)[None, :]).ravel().tolist()
        groups[bone].add(idx, w, "ADD")
mod = body.modifiers.new("Armature", "ARMATURE")
mod.object = arm
body.parent = arm

bpy.context.scene.frame_start = 1
bpy.context.scene.frame_end = 10
for f, deg in ((1, 0.0), (10, 20.0)):
    for pb in arm.pose.bones:
        pb.rotation_mode = "XYZ"
        pb.rotation_euler = (np.radians(deg), 0.0, 0.0)
        pb.keyframe_insert("rotation_euler", frame=f)
bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False, bake_anim=True,
                         bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)
sys.exit(0)
