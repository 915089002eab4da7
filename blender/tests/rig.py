"""Generated test rigs: an armature with a tree of bones and a grid mesh skinned to it
with a chosen number of bone influences per vertex, plus a non-bone vertex group."""

import bmesh
import bpy
import numpy as np


def clear_scene():
    """Remove every object, mesh, armature and material from the current file."""
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob, do_unlink=True)
    for coll in (bpy.data.meshes, bpy.data.armatures, bpy.data.materials):
        for block in list(coll):
            coll.remove(block)


def make_armature(name="Rig", bones=12, location=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0)):
    """An armature object with `bones` bones in a small tree (a spine with side chains),
    rolled and tilted so rest poses have non-trivial rotations; the object placed at
    `location` with Euler `rotation`."""
    arm = bpy.data.armatures.new(name)
    ob = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = location
    ob.rotation_euler = rotation
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    made = []
    for i in range(bones):
        b = arm.edit_bones.new("root" if i == 0 else f"bone_{i:02d}")
        parent = made[(i - 1) // 2] if i else None
        head = (0.0, 0.0, 0.0) if parent is None else tuple(parent.tail)
        side = (-1.0) ** i * 0.3 * (i % 3)
        b.head = head
        b.tail = (head[0] + side, head[1] + 0.1 * (i % 2), head[2] + 0.5)
        b.roll = 0.2 * i
        if parent is not None:
            b.parent = parent
            b.use_connect = False
        made.append(b)
    bpy.ops.object.mode_set(mode="OBJECT")
    return ob


def make_mesh(armature, vertices_side=20, influences=8, seed=1, name="Body",
              non_bone_group=True, materials=1, unweighted=()):
    """A grid mesh parented to `armature` with an Armature modifier; each vertex gets
    `influences` distinct bones (at most, drawn at random) with random weights that do
    not sum to 1 (every 7th vertex one more bone at a weight near the glTF exporter's
    0.0001 threshold); `unweighted` vertices get no bone weight. A group named
    "outline_thickness" (no bone) is written on every vertex when `non_bone_group`.
    With `materials` > 1, faces alternate between that many materials."""
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=vertices_side - 1, y_segments=vertices_side - 1, size=2.0)
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = (0.3, -0.2, 0.1)
    ob.rotation_euler = (0.1, 0.2, 0.3)
    ob.parent = armature
    mod = ob.modifiers.new("Armature", "ARMATURE")
    mod.object = armature
    for m in range(materials):
        mat = bpy.data.materials.new(f"mat_{m}")
        me.materials.append(mat)
    if materials > 1:
        idx = np.arange(len(me.polygons)) % materials
        me.polygons.foreach_set("material_index", idx.astype(np.int32))
    bone_names = [b.name for b in armature.data.bones]
    # groups in an order unlike the bones' to test matching by name
    groups = {n: ob.vertex_groups.new(name=n) for n in reversed(bone_names)}
    rng = np.random.default_rng(seed)
    n = len(me.vertices)
    k = min(influences, len(bone_names))
    skip = set(unweighted)
    for v in range(n):
        if v in skip:
            continue
        count = int(rng.integers(1, k + 1)) if v % 3 else k
        chosen = rng.choice(len(bone_names), size=count, replace=False)
        ws = rng.uniform(0.05, 0.9, size=count)
        if v % 17 == 0 and count > 1:
            ws[1] = ws[0]  # an exact tie
        for b, w in zip(chosen, ws):
            groups[bone_names[b]].add([v], float(w), "REPLACE")
        if v % 7 == 0 and count < len(bone_names):
            # a weight near the glTF exporter's threshold (it drops w <= 0.0001)
            spare = next(b for b in range(len(bone_names)) if b not in set(chosen))
            tiny = (0.00005, 0.0001, 0.00011)[(v // 7) % 3]
            groups[bone_names[spare]].add([v], tiny, "REPLACE")
    if non_bone_group:
        g = ob.vertex_groups.new(name="outline_thickness")
        g.add(list(range(n)), 0.7, "REPLACE")
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)
    return ob


def make_big_mesh(armature, side=316, influences=8, seed=0, name="Big"):
    """A side×side grid (316² ≈ 100 k vertices) skinned to every bone of `armature`:
    each vertex gets exactly `influences` distinct bones with random weights (written
    through a bmesh deform layer, the quick way to paint this many), plus the non-bone
    group "outline_thickness" at 0.5."""
    bone_names = [b.name for b in armature.data.bones]
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=side - 1, y_segments=side - 1, size=2.0)
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.parent = armature
    ob.modifiers.new("Armature", "ARMATURE").object = armature
    for n in bone_names:
        ob.vertex_groups.new(name=n)
    extra = ob.vertex_groups.new(name="outline_thickness").index
    layer = bm.verts.layers.deform.verify()
    rng = np.random.default_rng(seed)
    n = len(bm.verts)
    chosen = np.argsort(rng.random((n, len(bone_names))), axis=1)[:, :influences].tolist()
    weights = rng.uniform(0.05, 0.9, (n, influences)).tolist()
    for v, c, w in zip(bm.verts, chosen, weights):
        d = v[layer]
        for g, x in zip(c, w):
            d[g] = x
        d[extra] = 0.5
    bm.to_mesh(me)
    bm.free()
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)
    return ob
