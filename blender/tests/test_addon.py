"""The add-on in real Blender: check_weights, limit_weights and the DashVertex export on
generated rigs (up to 8 influences, a non-bone group, an unweighted vertex), held to
Blender's own glTF export run through the ``dashvertex`` command."""

import json
import os
import shutil
import tempfile
import unittest

import bpy
import numpy as np

import dashvertex
import dashvertex_blender
from dashvertex_blender import checking, exporter_view, group_weights, skeleton

import reference
import rig

K = 4


def bone_weights(obj, above=0.0001):
    """{bone: weight} per vertex over the groups that name a bone, straight from
    ``vertex.groups`` (no add-on code), weights above `above` (the exporter's threshold
    unless told)."""
    arm = obj.modifiers["Armature"].object
    bones = {b.name for b in arm.data.bones}
    names = [g.name for g in obj.vertex_groups]
    out = []
    for v in obj.data.vertices:
        out.append({names[g.group]: g.weight for g in v.groups
                    if names[g.group] in bones and g.weight > above})
    return out


def group_entries(obj):
    """Every vertex's ``(group name, weight)`` entries, sorted, zero weights included:
    vertex-group membership exactly as Blender holds it."""
    names = [g.name for g in obj.vertex_groups]
    return [sorted((names[g.group], g.weight) for g in v.groups) for v in obj.data.vertices]


class RigCase(unittest.TestCase):
    """A fresh scene with a 12-bone rig (moved and turned) and a 12×12 grid parented to
    it, 8 influences at most."""

    unweighted = (5, 77)
    materials = 1

    def setUp(self):
        rig.clear_scene()
        self.tmp = tempfile.mkdtemp(prefix="dash-blender-test-")
        self.arm = rig.make_armature(bones=12, location=(0.5, -0.25, 0.2), rotation=(0.0, 0.3, 0.1))
        self.obj = rig.make_mesh(self.arm, vertices_side=12, influences=8,
                                 unweighted=self.unweighted, materials=self.materials)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        """A path in this test's scratch folder."""
        return os.path.join(self.tmp, name)

    def reference_json(self, name, max_influences=K, manifest=None, locked=False):
        """Blender's glTF export + ``dashvertex reduce`` of the current rig, one JSON per
        primitive; returns their paths (the process result when the CLI refuses)."""
        glb = reference.gltf_export(self.obj, self.path(name + ".glb"))
        outs = []
        for p in range(reference.gltf_primitives(glb)):
            out = self.path(f"{name}.{p}.json")
            r = reference.reduce(glb, out, max_influences, manifest, locked, mesh=0, primitive=p)
            if r.returncode:
                return r
            outs.append(out)
        return outs

    def assert_same_export(self, mine, references):
        """Every vertex of every reference primitive is a vertex of `mine` at the same
        position with the same bones and weights; the skeletons agree (names, parents,
        rest pose within 1e-6)."""
        pos, inf, bones = reference.load(mine)
        self.assertEqual(len(pos), len(self.obj.data.vertices))
        seen = set()
        for ref in references:
            rpos, rinf, rbones = reference.load(ref)
            at = reference.match_vertices(rpos, pos)
            seen.update(at.tolist())
            for i, j in enumerate(at):
                self.assertEqual(rinf[i], inf[j], f"vertex {j}")
            self.assertEqual([b["name"] for b in rbones], [b["name"] for b in bones])
            self.assertEqual([b["parentIndex"] for b in rbones], [b["parentIndex"] for b in bones])
            for a, b in zip(rbones, bones):
                for part in ("position", "rotation", "scale"):
                    for axis in a[part]:
                        self.assertAlmostEqual(a[part][axis], b[part][axis], delta=1e-6,
                                               msg=f"{a['name']} {part}.{axis}")
        self.assertEqual(seen, set(range(len(pos))), "vertices the glTF export does not have")


class ReadTest(RigCase):
    def test_bulk_read_equals_vertex_loop(self):
        """The geometry-nodes read gives exactly the weights of the per-vertex loop."""
        a = group_weights.read_nodes(self.obj)
        b = group_weights.read_loop(self.obj)
        self.assertEqual(a.shape, (144, 13))
        self.assertTrue(np.array_equal(a, b))
        self.assertGreater(np.count_nonzero(a), 144 * 4)

    def test_exporter_view_matches_blender_export(self):
        """The in-memory GLB holds the glTF exporter's joints, positions and weights."""
        glb = reference.gltf_export(self.obj, self.path("b.glb"))
        theirs = dashvertex.read(glb)
        mine = dashvertex.read(dashvertex_blender.exporting.exporter_glb(self.obj))
        self.assertEqual(mine.skins[0].names, theirs.skins[0].names)
        self.assertEqual(mine.skins[0].parents, theirs.skins[0].parents)
        self.assertIn(skeleton.NEUTRAL_BONE, mine.skins[0].names)
        p, q = mine.primitives[0], theirs.primitives[0]
        at = reference.match_vertices(q.positions, p.positions)
        self.assertTrue(np.array_equal(p.weights[at], q.weights))


class LayoutTest(unittest.TestCase):
    """`exporter_view.sorted_influences` (dash's reducer keeping every influence) against
    the numpy layout it replaced, on random sparse weights with ties and empty rows."""

    def setUp(self):
        rng = np.random.default_rng(7)
        n, b = 2000, 25
        self.bones = np.zeros((n, b), dtype=np.float32)
        for _ in range(9):
            self.bones[np.arange(n), rng.integers(0, b, n)] = rng.random(n, dtype=np.float32)
        self.bones[::7] = 0.0  # unweighted vertices
        self.bones[3, [2, 5, 11]] = 0.25  # a tie

    def test_same_weights_and_joint_sets_as_numpy(self):
        """Slot for slot the same weights; per vertex the same joints, equal weights
        lowest joint first; padding joint 0 weight 0."""
        j, w = exporter_view.sorted_influences(self.bones)
        nj, nw = exporter_view.sorted_influences_numpy(self.bones)
        self.assertEqual(j.dtype, np.uint32)
        self.assertEqual(w.shape, nw.shape)
        self.assertTrue(np.array_equal(w, nw))
        for v in range(len(w)):
            used = w[v] > 0
            self.assertEqual(sorted(j[v][used]), sorted(nj[v][used]))
            self.assertTrue(np.all(j[v][~used] == 0))
            self.assertTrue(np.array_equal(self.bones[v, j[v][used]], w[v][used]))
            for a in range(used.sum() - 1):
                self.assertTrue(w[v, a] > w[v, a + 1] or j[v, a] < j[v, a + 1])
        self.assertEqual(list(j[3][w[3] == np.float32(0.25)]), [2, 5, 11])

    def test_a_weight_above_one_is_laid_out_by_numpy(self):
        """The reducer refuses a weight above 1 unnormalized; the layout still comes."""
        bones = self.bones.copy()
        bones[1, 4] = 1.5
        with self.assertRaises(dashvertex.DashError):
            dashvertex.reduce(None, bones, max_influences=12, normalize="none", empty="zero")
        j, w = exporter_view.sorted_influences(bones)
        self.assertEqual(w[1, 0], np.float32(1.5))
        self.assertEqual(j[1, 0], 4)
        self.assertTrue(np.array_equal(w, exporter_view.sorted_influences_numpy(bones)[1]))


class CheckTest(RigCase):
    def test_counts_and_selection(self):
        """Counts per code, and exactly the vertices over K or without a bone selected."""
        expect = bone_weights(self.obj)
        over = [i for i, row in enumerate(expect) if len(row) > K]
        empty = [i for i, row in enumerate(expect) if not row]
        self.assertEqual(sorted(empty), list(self.unweighted))
        self.assertTrue(over)
        result = bpy.ops.dash.check_weights(max_influences=K)
        self.assertEqual(result, {"FINISHED"})
        selected = [v.index for v in self.obj.data.vertices if v.select]
        self.assertEqual(selected, sorted(over + empty))
        last = json.loads(bpy.context.scene.dash_last_check)
        self.assertEqual(last["counts"][checking.OVER_LIMIT], len(over))
        self.assertEqual(last["counts"][checking.NO_BONE], len(empty))
        self.assertEqual(last["counts"][checking.NON_BONE_GROUP], 1)
        self.assertEqual(last["non_bone_groups"], ["outline_thickness"])
        not_one = [i for i, row in enumerate(expect) if abs(sum(row.values()) - 1) > 1e-3]
        self.assertEqual(last["counts"]["WEIGHT_SUM"], len(not_one))

    def test_function_returns_dash_report(self):
        """`dashvertex_blender.check` returns dash's report with the sum faults."""
        report = dashvertex_blender.check(self.obj, max_influences=K)
        self.assertIsInstance(report, dashvertex.Report)
        self.assertFalse(report.valid)
        self.assertIn("WEIGHT_SUM", report.codes)

    def test_edit_mode_selection_and_mode_kept(self):
        """In Edit mode the check selects the same vertices and stays in Edit mode."""
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        self.assertEqual(bpy.ops.dash.check_weights(max_influences=8), {"FINISHED"})
        self.assertEqual(self.obj.mode, "EDIT")
        bpy.ops.object.mode_set(mode="OBJECT")
        selected = [v.index for v in self.obj.data.vertices if v.select]
        expect = [i for i, row in enumerate(bone_weights(self.obj)) if len(row) > 8 or not row]
        self.assertEqual(selected, expect)
        self.assertGreater(len(expect), len(self.unweighted))  # 8 + one near the threshold
        chosen = set(expect)
        for e in self.obj.data.edges:
            self.assertEqual(e.select, all(v in chosen for v in e.vertices))

    def test_no_faults_selects_nothing(self):
        """A limited mesh with every vertex weighted has nothing over K or empty."""
        rig.clear_scene()
        arm = rig.make_armature(bones=6)
        obj = rig.make_mesh(arm, vertices_side=6, influences=3, non_bone_group=False)
        bpy.ops.dash.limit_weights(max_influences=3)
        bpy.ops.dash.check_weights(max_influences=3)
        self.assertFalse(any(v.select for v in obj.data.vertices))
        self.assertTrue(dashvertex_blender.check(obj, max_influences=3).valid)


class LimitTest(RigCase):
    def test_limit_keeps_what_dash_reduce_keeps(self):
        """After limit_weights each vertex has the bones and weights dash reduce gives
        Blender's glTF export, sums 1; the non-bone group is untouched."""
        refs = self.reference_json("before")
        ref_pos, ref_inf, _ = reference.load(refs[0])
        outline = [g.weight for v in self.obj.data.vertices for g in v.groups
                   if self.obj.vertex_groups[g.group].name == "outline_thickness"]
        self.assertIn("UNDO", dashvertex_blender.operators.DASH_OT_limit_weights.bl_options)
        first = dashvertex_blender.limit(self.obj, K)
        after = bone_weights(self.obj, above=0.0)
        view = exporter_view.gather(self.obj)
        at = reference.match_vertices(ref_pos, view.positions)
        for i, j in enumerate(at):
            if j in self.unweighted:
                self.assertEqual(after[j], {})
                continue
            self.assertEqual(set(after[j]), set(ref_inf[i]), f"vertex {j}")
            for bone, w in ref_inf[i].items():
                self.assertEqual(np.float32(after[j][bone]), np.float32(w), f"vertex {j} {bone}")
            self.assertLessEqual(len(after[j]), K)
            self.assertAlmostEqual(sum(np.float32(w) for w in after[j].values()), 1.0, delta=4 * 2e-7)
        outline_after = [g.weight for v in self.obj.data.vertices for g in v.groups
                         if self.obj.vertex_groups[g.group].name == "outline_thickness"]
        self.assertEqual(outline, outline_after)
        # a second run removes only the kept weights at or below the exporter's 0.0001
        # (the exporter, and so the second run, no longer sees them); the others move at
        # most by the float32 rounding of the exporter's renormalization
        done = dashvertex_blender.limit(self.obj, K)
        self.assertEqual(done.removed, first.below_exporter_threshold)
        again = bone_weights(self.obj, above=0.0)
        for j, row in enumerate(after):
            seen = {b: w for b, w in row.items() if w > 0.0001}
            self.assertEqual(set(again[j]), set(seen))
            if len(seen) == len(row):
                for bone, w in row.items():
                    self.assertAlmostEqual(again[j][bone], w, delta=3e-7)

    def test_limit_then_export_keeps_weights(self):
        """Exporting a limited mesh keeps its bones, and its weights up to the float32
        rounding of the glTF exporter's own renormalization; kept weights at or below
        the exporter's 0.0001 are the exception limit reports (the exporter drops them)."""
        done = dashvertex_blender.limit(self.obj, K)
        self.assertGreater(done.below_exporter_threshold, 0)  # the rig has such weights
        after = bone_weights(self.obj, above=0.0)
        out = self.path("limited.json")
        dashvertex_blender.export(self.obj, out, max_influences=K)
        _, inf, _ = reference.load(out)
        tiny = 0
        for j, row in enumerate(after):
            if not row:
                continue
            seen = {b: w for b, w in row.items() if w > 0.0001}
            self.assertEqual(set(inf[j]), set(seen), f"vertex {j}")
            if len(seen) < len(row):
                tiny += len(row) - len(seen)  # the exporter dropped it: renormalized
                continue
            for b, w in row.items():
                self.assertAlmostEqual(inf[j][b], w, delta=3e-7, msg=f"vertex {j} {b}")
        self.assertEqual(tiny, done.below_exporter_threshold)


def animate(arm, frames=(1, 8, 16, 24)):
    """An action on `arm`: every bone turned about a different axis, by an angle that
    grows with the frame, keyframed at `frames` (the first at rest)."""
    for i, bone in enumerate(arm.pose.bones):
        bone.rotation_mode = "XYZ"
        for k, f in enumerate(frames):
            angle = 0.35 * k * (1 + (i % 3)) * (-1) ** i
            bone.rotation_euler = [angle if a == i % 3 else 0.0 for a in range(3)]
            bone.keyframe_insert("rotation_euler", frame=f)
    bpy.context.scene.frame_set(frames[0])


def deformed(obj, frames):
    """`obj`'s vertices in world space as Blender's Armature modifier deforms them, at
    each of `frames`: (frames, vertices, 3) float64."""
    scene = bpy.context.scene
    out = []
    for f in frames:
        scene.frame_set(f)
        ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        me = ev.to_mesh()
        co = np.empty(len(me.vertices) * 3, dtype=np.float32)
        me.vertices.foreach_get("co", co)
        ev.to_mesh_clear()
        m = np.array(obj.matrix_world)
        out.append(co.reshape(-1, 3).astype(np.float64) @ m[:3, :3].T + m[:3, 3])
    scene.frame_set(frames[0])
    return np.array(out)


class FitLimitTest(RigCase):
    """limit(fit=True) measured by Blender's own Armature modifier over the action:
    the fitted weights move the mesh less than the plain ones."""

    def twin(self):
        """A copy of the mesh object (its own mesh data and vertex groups), skinned to the
        same armature."""
        copy = self.obj.copy()
        copy.data = self.obj.data.copy()
        bpy.context.scene.collection.objects.link(copy)
        return copy

    def test_fitted_limit_moves_vertices_less(self):
        animate(self.arm)
        frames = list(range(1, 25))
        full = deformed(self.obj, frames)
        plain_obj, fit_obj = self.twin(), self.twin()
        plain = dashvertex_blender.limit(plain_obj, 2)
        done = dashvertex_blender.limit(fit_obj, 2, fit=True)
        self.assertIsNone(plain.fit)
        self.assertGreater(done.fit["fitted"], 0)
        self.assertEqual(done.fit["poses"], 1 + len(frames))
        self.assertLess(done.fit["objective_fitted"], done.fit["objective_plain"])
        a = ((deformed(plain_obj, frames) - full) ** 2).sum(axis=2)
        b = ((deformed(fit_obj, frames) - full) ** 2).sum(axis=2)
        # Blender's deformation (float32, its own normalization) agrees with the fit's
        # measure: less displacement in total and at the worst vertex and frame.
        print(f"\nfitted ÷ plain over {len(frames)} frames, by Blender's deformation: "
              f"summed squared {b.sum() / a.sum():.3f}, worst {np.sqrt(b.max() / a.max()):.3f}")
        self.assertLess(b.sum(), 0.9 * a.sum())
        self.assertLessEqual(b.max(), a.max())
        for row in bone_weights(fit_obj, above=0.0):
            self.assertLessEqual(len(row), 2)
            if row:
                self.assertAlmostEqual(sum(row.values()), 1.0, delta=4 * 2e-7)
        # the scene's frame is where it was
        self.assertEqual(bpy.context.scene.frame_current, 1)

    def test_fit_without_an_action_is_refused_by_name(self):
        with self.assertRaisesRegex(dashvertex_blender.limiting.NoAnimation, "has no action"):
            dashvertex_blender.limit(self.obj, 2, fit=True)
        bpy.context.view_layer.objects.active = self.obj
        # the operator reports the error (a RuntimeError from bpy.ops in background mode)
        with self.assertRaisesRegex(RuntimeError, "has no action"):
            bpy.ops.dash.limit_weights(max_influences=2, fit=True)

    def test_the_operator_fits(self):
        animate(self.arm)
        bpy.context.view_layer.objects.active = self.obj
        self.assertEqual(bpy.ops.dash.limit_weights(max_influences=2, fit=True), {"FINISHED"})
        self.assertTrue(all(len(row) <= 2 for row in bone_weights(self.obj, above=0.0)))


class WritePathTest(RigCase):
    """limit's two ways of writing the weights (one applied geometry-nodes modifier, the
    vertex loop kept for meshes a modifier cannot be applied to) give the same groups."""

    def fresh(self):
        """The rig of `setUp` again, from scratch."""
        self.tearDown()
        self.setUp()

    def limited(self, use_nodes, prepare=None):
        """A fresh rig, `prepare(obj)` run on it, then limited: (`Limited`, entries)."""
        self.fresh()
        if prepare:
            prepare(self.obj)
        done = dashvertex_blender.limit(self.obj, K, use_nodes=use_nodes)
        return done, group_entries(self.obj)

    def test_nodes_write_what_the_loop_writes(self):
        """The geometry-nodes write leaves every vertex in exactly the groups, at exactly
        the weights, the loop does: dropped entries removed (no 0-weight entry left), a
        0-weight entry that was there kept; the stack (which modifiers show in the
        viewport too), positions, active group and locks untouched."""
        def prepare(obj):
            obj.vertex_groups["bone_03"].add([3], 0.0, "REPLACE")  # a 0 entry of its own
            obj.modifiers.new("Subdivision", "SUBSURF").levels = 1  # after the Armature
            obj.modifiers.new("Hidden", "SMOOTH").show_viewport = False
            self.arm.pose.bones["bone_02"].location = (0.3, 0.1, 0.2)  # posed: deforms
            obj.vertex_groups.active_index = 2
            obj.vertex_groups[1].lock_weight = True

        results = {}
        for use_nodes in (True, False):
            self.fresh()
            prepare(self.obj)
            before = group_entries(self.obj)
            co = [tuple(v.co) for v in self.obj.data.vertices]
            done = dashvertex_blender.limit(self.obj, K, use_nodes=use_nodes)
            results[use_nodes] = (done, group_entries(self.obj))
            self.assertEqual([(m.name, m.show_viewport) for m in self.obj.modifiers],
                             [("Armature", True), ("Subdivision", True), ("Hidden", False)])
            self.assertEqual([tuple(v.co) for v in self.obj.data.vertices], co)
            self.assertEqual(list(self.obj.data.attributes.keys()), [])
            self.assertEqual(len(bpy.data.node_groups), 0)
            self.assertEqual(self.obj.vertex_groups.active_index, 2)
            self.assertEqual([g.lock_weight for g in self.obj.vertex_groups][:3], [False, True, False])
        (nodes, by_nodes), (loop, by_loop) = results[True], results[False]
        self.assertEqual((nodes.written_by, loop.written_by), ("nodes", "loop"))
        self.assertEqual(by_nodes, by_loop)
        self.assertEqual((nodes.changed, nodes.removed), (loop.changed, loop.removed))
        self.assertGreater(nodes.removed, 0)
        self.assertIn(("bone_03", 0.0), by_nodes[3])
        zeros = [(v, e) for v, row in enumerate(by_nodes) for e in row if e[1] == 0.0]
        self.assertEqual(zeros, [(3, ("bone_03", 0.0))])
        # every entry left was there before: nothing added
        for v, row in enumerate(by_nodes):
            self.assertLessEqual({n for n, _ in row}, {n for n, _ in before[v]}, f"vertex {v}")

    def test_shape_keys_fall_back_to_the_loop(self):
        """A mesh with shape keys (a modifier cannot be applied to it) is written by the
        loop, with the groups and weights the geometry-nodes write gives without them;
        its shape keys stay."""
        def keys(obj):
            obj.shape_key_add(name="Basis")
            obj.shape_key_add(name="Smile").data[0].co = (1.0, 2.0, 3.0)

        plain, by_nodes = self.limited(True)
        keyed, by_loop = self.limited(True, keys)
        self.assertEqual((plain.written_by, keyed.written_by), ("nodes", "loop"))
        self.assertEqual(by_nodes, by_loop)
        blocks = self.obj.data.shape_keys.key_blocks
        self.assertEqual([k.name for k in blocks], ["Basis", "Smile"])
        self.assertEqual(tuple(blocks["Smile"].data[0].co), (1.0, 2.0, 3.0))
        self.assertEqual([m.name for m in self.obj.modifiers], ["Armature"])

    def test_shared_mesh_falls_back_to_the_loop(self):
        """A mesh two objects share is written by the loop (applying a modifier would
        need it single-user) and stays shared."""
        _, by_nodes = self.limited(True)
        twin = []
        done, by_loop = self.limited(True, lambda obj: twin.append(bpy.data.objects.new("Twin", obj.data)))
        self.assertEqual(done.written_by, "loop")
        self.assertEqual(by_loop, by_nodes)
        self.assertIs(twin[0].data, self.obj.data)


class ExportTest(RigCase):
    def test_export_equals_gltf_export_and_cli(self):
        """The operator's JSON equals Blender's glTF export + dashvertex reduce, K = 4 and
        K = 8 (two sets), each with a manifest of its own."""
        for k in (4, 8):
            mine = self.path(f"mine{k}.json")
            manifest = self.path(f"mine{k}.manifest.json")
            r = bpy.ops.export_mesh.dashvertex(filepath=mine, manifest_path=manifest, max_influences=k)
            self.assertEqual(r, {"FINISHED"})
            refs = self.reference_json(f"ref{k}", k, manifest=self.path(f"ref{k}.manifest.json"))
            self.assertIsInstance(refs, list, getattr(refs, "stderr", ""))
            self.assert_same_export(mine, refs)
            with open(manifest) as a, open(self.path(f"ref{k}.manifest.json")) as b:
                self.assertEqual(json.load(a), json.load(b))

    def test_dmx_by_extension(self):
        """A .dmx path gets the DMX container, with the same data as the JSON."""
        dmx, js = self.path("m.dmx"), self.path("m.json")
        dashvertex_blender.export(self.obj, dmx, max_influences=K)
        dashvertex_blender.export(self.obj, js, max_influences=K)
        a, b = dashvertex.read(dmx), dashvertex.read(js)
        self.assertEqual(a.format.lower().split()[0][:3], "dmx")
        self.assertTrue(np.array_equal(a.primitives[0].weights, b.primitives[0].weights))
        self.assertTrue(np.array_equal(a.primitives[0].joints, b.primitives[0].joints))

    def add_bone(self, name="aaa_extra", vertices=(0, 1, 2)):
        """Add bone `name` under "root" (a name that sorts first) weighting `vertices`."""
        bpy.context.view_layer.objects.active = self.arm
        bpy.ops.object.mode_set(mode="EDIT")
        b = self.arm.data.edit_bones.new(name)
        b.head, b.tail = (0.2, 0.0, 0.0), (0.2, 0.0, 0.4)
        b.parent = self.arm.data.edit_bones["root"]
        bpy.ops.object.mode_set(mode="OBJECT")
        g = self.obj.vertex_groups.new(name=name)
        g.add(list(vertices), 0.95, "REPLACE")
        bpy.context.view_layer.objects.active = self.obj

    def test_bone_added_keeps_old_indices(self):
        """Re-exported after a new bone, every old bone keeps its index (the new one is
        appended), and the export still equals the glTF export + CLI."""
        manifest = self.path("rig.manifest.json")
        first = self.path("v1.json")
        dashvertex_blender.export(self.obj, first, manifest, K)
        before = dashvertex.Manifest.load(manifest).names
        self.add_bone()
        second = self.path("v2.json")
        shutil.copy(manifest, self.path("ref.manifest.json"))
        self.assertEqual(bpy.ops.export_mesh.dashvertex(filepath=second, manifest_path=manifest,
                                                        max_influences=K), {"FINISHED"})
        after = dashvertex.Manifest.load(manifest).names
        self.assertEqual(after[:len(before)], before)
        self.assertEqual(after[len(before):], ["aaa_extra"])
        _, _, bones1 = reference.load(first)
        _, inf2, bones2 = reference.load(second)
        self.assertEqual([b["name"] for b in bones2][:len(bones1)], [b["name"] for b in bones1])
        self.assertTrue(any("aaa_extra" in row for row in inf2))
        refs = self.reference_json("ref", manifest=self.path("ref.manifest.json"))
        self.assert_same_export(second, refs)

    def test_locked_refuses_new_bone(self):
        """With locked, a bone the manifest lacks fails the export: nothing is written
        and the manifest is unchanged."""
        manifest = self.path("rig.manifest.json")
        dashvertex_blender.export(self.obj, self.path("v1.json"), manifest, K)
        with open(manifest, "rb") as f:
            saved = f.read()
        self.add_bone()
        out = self.path("locked.json")
        with self.assertRaises(dashvertex.DashError):
            dashvertex_blender.export(self.obj, out, manifest, K, locked=True)
        with self.assertRaisesRegex(RuntimeError, "BONE_NOT_IN_MANIFEST|aaa_extra|locked"):
            bpy.ops.export_mesh.dashvertex(filepath=out, manifest_path=manifest,
                                           max_influences=K, locked=True)
        self.assertFalse(os.path.exists(out))
        with open(manifest, "rb") as f:
            self.assertEqual(f.read(), saved)
        # the CLI refuses the glTF export the same way
        shutil.copy(manifest, self.path("ref.manifest.json"))
        r = self.reference_json("ref", manifest=self.path("ref.manifest.json"), locked=True)
        self.assertNotIsInstance(r, list)
        self.assertEqual(r.returncode, 1)

    def test_unskinned_mesh_is_refused(self):
        """A mesh without an armature is reported, not exported."""
        self.obj.modifiers.remove(self.obj.modifiers["Armature"])
        with self.assertRaisesRegex(RuntimeError, "Armature modifier"):
            bpy.ops.export_mesh.dashvertex(filepath=self.path("x.json"))
        self.assertFalse(os.path.exists(self.path("x.json")))


class MultiMaterialTest(RigCase):
    """Two materials: Blender's glTF export has two primitives sharing border vertices."""

    materials = 2

    def test_export_equals_each_primitive(self):
        """Every vertex of both exported primitives has the add-on export's data."""
        mine = self.path("mine.json")
        self.assertEqual(bpy.ops.export_mesh.dashvertex(filepath=mine, max_influences=K), {"FINISHED"})
        refs = self.reference_json("ref")
        self.assertIsInstance(refs, list, getattr(refs, "stderr", ""))
        self.assertEqual(len(refs), 2)
        self.assert_same_export(mine, refs)

    def test_limit_and_check(self):
        """limit_weights then check_weights: nothing over K; sums 1 but on the empties
        and where a kept weight is at or below the exporter's 0.0001 (it ignores it)."""
        bpy.ops.dash.limit_weights(max_influences=K)
        tiny = sum(1 for row in bone_weights(self.obj, above=0.0)
                   if any(w <= 0.0001 for w in row.values()))
        self.assertGreater(tiny, 0)
        bpy.ops.dash.check_weights(max_influences=K)
        last = json.loads(bpy.context.scene.dash_last_check)
        self.assertEqual(last["counts"][checking.OVER_LIMIT], 0)
        self.assertEqual(last["counts"].get("WEIGHT_SUM", 0), len(self.unweighted) + tiny)
        self.assertEqual(last["selected"], len(self.unweighted))


class TieTest(RigCase):
    """A vertex with six equal bone weights: which four stay is the bone-index tie rule,
    so the manifest's numbering decides it, in limit_weights as in the export."""

    def setUp(self):
        super().setUp()
        names = sorted(b.name for b in self.arm.data.bones)
        for g in self.obj.vertex_groups:
            g.remove([0])
        self.tied = names[1:7]
        for name in self.tied:
            self.obj.vertex_groups[name].add([0], 0.5, "REPLACE")
        # a manifest numbering the bones parents first, siblings in reverse name order
        order, level = [], [b for b in self.arm.data.bones if b.parent is None]
        while level:
            level.sort(key=lambda b: b.name, reverse=True)
            order += level
            level = [c for b in level for c in b.children]
        bones = [dict({"index": i, "name": b.name}, **({"parent": b.parent.name} if b.parent else {}))
                 for i, b in enumerate(order)]
        self.manifest = self.path("reverse.manifest.json")
        with open(self.manifest, "w") as f:
            json.dump({"version": 1, "bones": bones}, f)

    def kept_by_reference(self, manifest):
        """Bones dash reduce keeps at vertex 0 of Blender's glTF export."""
        refs = self.reference_json("ref", manifest=manifest)
        self.assertIsInstance(refs, list, getattr(refs, "stderr", ""))
        pos, inf, _ = reference.load(refs[0])
        at = reference.match_vertices(pos, exporter_view.gather(self.obj).positions)
        return set(inf[int(np.nonzero(at == 0)[0][0])])

    def test_manifest_breaks_ties_as_in_the_export(self):
        """With the manifest, limit keeps the tied bones the export keeps; without it,
        the exporter's joint order decides, and the two choices differ."""
        shutil.copy(self.manifest, self.path("ref.manifest.json"))
        with_manifest = self.kept_by_reference(self.path("ref.manifest.json"))
        without = self.kept_by_reference(None)
        self.assertNotEqual(with_manifest, without)
        self.assertEqual(len(with_manifest), K)
        pristine = {n: 0.5 for n in self.tied}
        bpy.ops.dash.limit_weights(max_influences=K, manifest_path=self.manifest)
        self.assertEqual(set(bone_weights(self.obj)[0]), with_manifest)
        self.assertTrue(all(abs(w - 0.25) < 1e-7 for w in bone_weights(self.obj)[0].values()))
        for name, w in pristine.items():
            self.obj.vertex_groups[name].add([0], w, "REPLACE")
        bpy.ops.dash.limit_weights(max_influences=K)
        self.assertEqual(set(bone_weights(self.obj)[0]), without)


class WeightPaintTest(RigCase):
    def test_check_in_weight_paint_mode(self):
        """In Weight Paint mode the check selects, turns the vertex mask on and stays."""
        bpy.ops.object.mode_set(mode="WEIGHT_PAINT")
        self.assertEqual(bpy.ops.dash.check_weights(max_influences=K), {"FINISHED"})
        self.assertEqual(self.obj.mode, "WEIGHT_PAINT")
        self.assertTrue(self.obj.data.use_paint_mask_vertex)
        expect = [i for i, row in enumerate(bone_weights(self.obj)) if len(row) > K or not row]
        self.assertEqual([v.index for v in self.obj.data.vertices if v.select], expect)


class MessagesTest(RigCase):
    def test_neutral_bone_warning_and_written(self):
        """The unweighted vertices make the exporter's neutral bone; the manifest numbering
        it comes back as dash's warning, and the result says the file was written."""
        out = self.path("m.json")
        result = dashvertex_blender.export(self.obj, out, self.path("m.manifest.json"), K)
        self.assertTrue(result.written)
        warnings = [t for level, t in result.messages if level == "warning"]
        self.assertTrue(any("neutral_bone" in t for t in warnings), result.messages)
        self.assertIn("neutral_bone", dashvertex.Manifest.load(self.path("m.manifest.json")).names)
