# SPDX-License-Identifier: GPL-3.0-or-later
"""The skin Blender's glTF exporter writes for a mesh: which armature, the joints in its
order, each joint's rest transform and inverse bind matrix, all in glTF's +Y-up space.

The conversions follow the exporter of Blender 3.4 (``io_scene_gltf2``): bone world matrix
``armature.matrix_world @ bone.matrix_local @ Y_UP``, local = parent⁻¹ @ world, decomposed
and swizzled; inverse bind matrix ``(Y_UP_BASIS @ armature.matrix_world @ bone.matrix_local)⁻¹``.
"""

from dataclasses import dataclass, field
from typing import List, Optional

from mathutils import Matrix

#: Name of the joint the exporter adds for vertices no bone weights.
NEUTRAL_BONE = "neutral_bone"

#: Z-up to Y-up, as the exporter multiplies it (its ``axis_basis_change``).
Y_UP = Matrix(((1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, -1.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))


@dataclass
class Joint:
    """One glTF joint node: name, parent joint (index into the joint list, None for a
    child of the armature node), local translation, rotation (x, y, z, w), scale, and
    the column-major inverse bind matrix."""

    name: str
    parent: Optional[int]
    translation: List[float]
    rotation: List[float]
    scale: List[float]
    inverse_bind: List[float]
    children: List[int] = field(default_factory=list)


@dataclass
class Skin:
    """The exporter's skin of one mesh: the armature node's transform and the joints."""

    armature_name: str
    armature_translation: List[float]
    armature_rotation: List[float]
    armature_scale: List[float]
    joints: List[Joint]

    @property
    def names(self):
        """Joint names in joint order."""
        return [j.name for j in self.joints]


def armature_of(obj):
    """The armature the glTF exporter skins `obj` to (its Armature modifier's object,
    unless `obj` is parented to one of that armature's bones), or None."""
    if obj is None or obj.type != "MESH" or not obj.vertex_groups:
        return None
    arm = None
    for mod in obj.modifiers:
        if mod.type == "ARMATURE":
            arm = mod.object  # the exporter keeps the last one (a dict by type)
    if arm is None or arm.type != "ARMATURE":
        return None
    if obj.parent_type == "BONE" and obj.parent is not None and obj.parent.name == arm.name:
        return None
    return arm


def _swizzled_trs(matrix):
    """Translation, rotation (x, y, z, w) and scale of `matrix` in glTF axes."""
    t, q, s = matrix.decompose()
    return ([t[0], t[2], -t[1]], [q[1], q[3], -q[2], q[0]], [s[0], s[2], s[1]])


def _column_major(matrix):
    """The 16 floats of a 4×4 `matrix`, column by column."""
    return [matrix[row][col] for col in range(4) for row in range(4)]


def bone_order(arm):
    """Pose bones in the exporter's joint order: depth first from the roots, each
    bone's children in Blender's order."""
    order = []
    stack = [b for b in arm.pose.bones if b.parent is None][::-1]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(list(b.children)[::-1])
    return order


def gather(arm, neutral=False):
    """The exporter's `Skin` for armature object `arm`; `neutral` appends its neutral
    bone (a child of the armature node holding the Y-up rotation)."""
    world = arm.matrix_world
    bones = bone_order(arm)
    index = {b.name: i for i, b in enumerate(bones)}
    joints = []
    for b in bones:
        bone_world = world @ b.bone.matrix_local @ Y_UP
        parent_world = world if b.parent is None else world @ b.parent.bone.matrix_local @ Y_UP
        t, r, s = _swizzled_trs(parent_world.inverted_safe() @ bone_world)
        ibm = (Y_UP @ (world @ b.bone.matrix_local)).inverted_safe()
        parent = None if b.parent is None else index[b.parent.name]
        joints.append(Joint(b.name, parent, t, r, s, _column_major(ibm)))
    if neutral:
        t, q, s = Y_UP.decompose()
        ibm = (Y_UP @ world).inverted_safe()
        joints.append(Joint(NEUTRAL_BONE, None, list(t), [q[1], q[2], q[3], q[0]], list(s),
                            _column_major(ibm)))
    for i, j in enumerate(joints):
        if j.parent is not None:
            joints[j.parent].children.append(i)
    t, r, s = _swizzled_trs(world)
    return Skin(arm.name, t, r, s, joints)


def parents(skin):
    """``(name, parent name or None)`` per joint, as a manifest numbers bones."""
    return [(j.name, None if j.parent is None else skin.joints[j.parent].name) for j in skin.joints]
