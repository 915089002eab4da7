#!/usr/bin/env python3
"""Writes the FBX validation vectors of spec/vectors/fbx/: small ASCII FBX 7.4 files, each
a triangle skinned to a two-bone chain with one fault of spec/validation.md (FBX_*), and
truncated.fbx (the first 2,000 bytes of fixtures/fbx/clean.fbx, Blender's binary export).

Written by hand for dash (issue 50); run from anywhere: python3 spec/vectors/fbx/make_vectors.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def translate(x, y, z):
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1]


def arr(name, values, indent="\t\t"):
    body = ",".join(repr(v) if isinstance(v, float) else str(v) for v in values)
    return f"{indent}{name}: *{len(values)} {{\n{indent}\ta: {body}\n{indent}}}\n"


def fbx(clusters, skins=1, skinning="Linear", pose=None, helper=False, bones=2):
    """`clusters`: list of (name, bone id or None, indexes, weights, transform link);
    a chain of `bones` bones 3000 + 100 i (Bone0 the root, Bone{i} at y = i); the
    geometry is 1000."""
    out = ["; FBX 7.4.0 project file\n",
           "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n",
           "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n"
           '\t\tP: "UpAxis", "int", "Integer", "",1\n'
           '\t\tP: "UpAxisSign", "int", "Integer", "",1\n'
           '\t\tP: "UnitScaleFactor", "double", "Number", "",100\n\t}\n}\n',
           "Objects:  {\n",
           '\tGeometry: 1000, "Geometry::Tri", "Mesh" {\n',
           arr("Vertices", [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
           arr("PolygonVertexIndex", [0, 1, -3]),
           "\t}\n",
           '\tModel: 2000, "Model::Tri", "Mesh" {\n\t\tVersion: 232\n\t}\n']
    for i in range(bones):
        bid, name, y = 3000 + 100 * i, f"Bone{i}", min(i, 1)
        out.append(f'\tNodeAttribute: {bid + 1}, "NodeAttribute::{name}", "LimbNode" {{\n\t\tTypeFlags: "Skeleton"\n\t}}\n')
        out.append(f'\tModel: {bid}, "Model::{name}", "LimbNode" {{\n\t\tVersion: 232\n'
                   f'\t\tProperties70:  {{\n\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,{y},0\n\t\t}}\n\t}}\n')
    if helper:
        out.append('\tModel: 3200, "Model::Helper", "Null" {\n\t\tVersion: 232\n\t}\n')
    for s in range(skins):
        out.append(f'\tDeformer: {4000 + s}, "Deformer::Skin{s}", "Skin" {{\n\t\tVersion: 101\n'
                   f'\t\tLink_DeformAcuracy: 50\n\t\tSkinningType: "{skinning}"\n\t}}\n')
    for i, (name, _bone, idx, w, link) in enumerate(clusters):
        out.append(f'\tDeformer: {5000 + i}, "SubDeformer::{name}", "Cluster" {{\n\t\tVersion: 100\n')
        out.append(arr("Indexes", idx))
        out.append(arr("Weights", [float(x) for x in w]))
        out.append(arr("Transform", [float(x) for x in IDENTITY]))
        out.append(arr("TransformLink", [float(x) for x in link]))
        out.append("\t}\n")
    poses = pose if pose is not None else [(2000, IDENTITY), (3000, IDENTITY), (3100, translate(0, 1, 0))]
    out.append(f'\tPose: 6000, "Pose::BindPose", "BindPose" {{\n\t\tType: "BindPose"\n\t\tVersion: 100\n\t\tNbPoseNodes: {len(poses)}\n')
    for node, m in poses:
        out.append(f"\t\tPoseNode:  {{\n\t\t\tNode: {node}\n")
        out.append(arr("Matrix", [float(x) for x in m], "\t\t\t"))
        out.append("\t\t}\n")
    out.append("\t}\n}\n")
    conns = ["2000,0", "1000,2000", "3000,0", "3001,3000"]
    for i in range(1, bones):
        conns += [f"{3000 + 100 * i},{2900 + 100 * i}", f"{3001 + 100 * i},{3000 + 100 * i}"]
    if helper:
        conns.append("3200,0")
    for s in range(skins):
        conns.append(f"{4000 + s},1000")
    for i, (_name, bone, _idx, _w, _link) in enumerate(clusters):
        conns.append(f"{5000 + i},4000")
        if bone is not None:
            conns.append(f"{bone},{5000 + i}")
    out.append("Connections:  {\n" + "".join(f'\tC: "OO",{c}\n' for c in conns) + "}\n")
    return "".join(out)


B0 = ("Bone0", 3000)
B1 = ("Bone1", 3100)
Y1 = translate(0, 1, 0)


def write(name, text):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        f.write(text)


write("ascii-clean.fbx", fbx([(*B0, [0, 1], [1, 0.5], IDENTITY), (*B1, [1, 2], [0.5, 1], Y1)]))
write("weight-negative-zero.fbx", fbx([(*B0, [0, 1, 2], [1, -0.5, 0], IDENTITY), (*B1, [1, 2], [1.5, 1], Y1)]))
write("cluster-duplicate.fbx", fbx([(*B0, [0, 1], [1, 0.5], IDENTITY), (*B1, [2], [1], Y1), ("Bone0b", 3000, [1], [0.5], IDENTITY)]))
write("cluster-not-bone.fbx", fbx([(*B0, [0, 1, 2], [1, 1, 1], IDENTITY), ("Helper", 3200, [2], [0.0], IDENTITY), ("Nothing", None, [1], [0.0], IDENTITY)], helper=True))
write("bind-pose.fbx", fbx([(*B0, [0, 1], [1, 1], IDENTITY), (*B1, [2], [1], Y1)], pose=[(2000, IDENTITY), (3000, translate(0, 0, 2))]))
write("skin-several.fbx", fbx([(*B0, [0, 1, 2], [1, 1, 1], IDENTITY)], skins=2))
write("skinning-dual-quaternion.fbx", fbx([(*B0, [0, 1, 2], [1, 1, 1], IDENTITY)], skinning="DualQuaternion"))
write("weight-sum.fbx", fbx([(*B0, [0, 1, 2], [0.5, 1, 1], IDENTITY), (*B1, [0], [0.2], Y1)]))
write("influences.fbx", fbx([(f"Bone{i}", 3000 + 100 * i, [0, 1, 2], [0.2] * 3, translate(0, min(i, 1), 0)) for i in range(5)], bones=5,
                            pose=[(2000, IDENTITY), (3000, IDENTITY)] + [(3000 + 100 * i, translate(0, 1, 0)) for i in range(1, 5)]))
write("no-skin.fbx", fbx([], skins=0, pose=[]))
with open(os.path.join(ROOT, "fixtures/fbx/clean.fbx"), "rb") as f:
    head = f.read(2000)
with open(os.path.join(HERE, "truncated.fbx"), "wb") as f:
    f.write(head)
