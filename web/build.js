// The three.js scene of a decoded glTF document (the inspector module's `scene()` and
// arrays): nodes as Object3D/Bone with their transforms, primitives as (Skinned)Mesh
// bound to their skin's joints with its inverse bind matrices, and the animations as
// AnimationClips for an AnimationMixer.
//
// Weights are drawn as the file means them (`displayWeights` of dash-three): a vertex
// without weight stays where the file puts it (bound to the skin's root joint with weight
// 1), sums other than 1 are divided out, and more than four influences are drawn as the
// heaviest four (ties: lower joint index), and influences of joints the skin lacks are left
// out. Each case is counted in the build's `display`.

import * as THREE from 'three';
import { displayWeights } from 'dash-three';

/**
 * Parent of each node: the first node listing it as a child, with every edge that
 * would close a cycle dropped. Linear in nodes + edges (each node's chain is walked once).
 */
export function parents(nodes, problems) {
  const n = nodes.length;
  const parent = new Int32Array(n).fill(-1);
  let twoParents = 0;
  nodes.forEach((node, i) => {
    for (const c of node.children) {
      if (!(Number.isInteger(c) && c >= 0 && c < n) || c === i) continue;
      if (parent[c] === -1) parent[c] = i;
      else if (parent[c] !== i && twoParents++ === 0) problems.push(`node ${c} has two parents (${parent[c]}, ${i}): kept under ${parent[c]}`);
    }
  });
  if (twoParents > 1) problems.push(`${twoParents - 1} more nodes with a second parent, kept under the first`);
  // 0: unseen, 1: on the chain being walked, 2: done (its chain reaches a root).
  const state = new Uint8Array(n);
  for (let start = 0; start < n; start++) {
    const chain = [];
    let v = start;
    while (v !== -1 && state[v] === 0) {
      state[v] = 1;
      chain.push(v);
      v = parent[v];
    }
    if (v !== -1 && state[v] === 1) {
      problems.push(`nodes form a cycle through node ${v}: made node ${v} a root`);
      parent[v] = -1;
    }
    for (const c of chain) state[c] = 2;
  }
  return parent;
}

/** Each node's topmost ancestor (itself for a root), every chain walked once. */
export function topmost(parent) {
  const tops = new Int32Array(parent.length).fill(-1);
  const path = [];
  for (let i = 0; i < parent.length; i++) {
    let v = i;
    while (tops[v] < 0 && parent[v] >= 0) {
      path.push(v);
      v = parent[v];
    }
    const t = tops[v] >= 0 ? tops[v] : v;
    tops[v] = t;
    for (const p of path) tops[p] = t;
    path.length = 0;
  }
  return tops;
}

function transform(obj, node) {
  if (node.matrix) {
    new THREE.Matrix4().fromArray(node.matrix).decompose(obj.position, obj.quaternion, obj.scale);
  } else {
    obj.position.fromArray(node.translation);
    obj.quaternion.fromArray(node.rotation);
    obj.scale.fromArray(node.scale);
  }
}

/**
 * The heaviest four of every set of each vertex (ties: lower joint index). Influences of
 * joints the skin does not have (`joints` or more) mean nothing to draw: left out, and
 * counted in `outOfRange`.
 */
function heaviestFour(sets, count, joints) {
  const outOfRange = { vertices: 0, first: -1 };
  if (sets.length === 1) {
    // One set: at most four already, nothing to choose; only missing joints go.
    const index = Uint32Array.from(sets[0].joints);
    const weight = Float32Array.from(sets[0].weights);
    let last = -1;
    for (let i = 0; i < index.length; i++) {
      if (weight[i] !== 0 && index[i] >= joints) {
        const v = i >> 2;
        if (v !== last) {
          outOfRange.vertices++;
          if (outOfRange.first < 0) outOfRange.first = v;
          last = v;
        }
        index[i] = 0;
        weight[i] = 0;
      }
    }
    return { index, weight, reduced: { vertices: 0, first: -1 }, outOfRange };
  }
  const index = new Uint32Array(count * 4);
  const weight = new Float32Array(count * 4);
  let reduced = 0;
  let first = -1;
  const pairs = [];
  for (let v = 0; v < count; v++) {
    pairs.length = 0;
    let outside = false;
    for (const s of sets) {
      for (let k = 0; k < 4; k++) {
        const w = s.weights[4 * v + k];
        const j = s.joints[4 * v + k];
        if (w === 0) continue;
        if (j >= joints) outside = true;
        else pairs.push([j, w]);
      }
    }
    if (outside) {
      outOfRange.vertices++;
      if (outOfRange.first < 0) outOfRange.first = v;
    }
    if (pairs.length > 4) {
      reduced++;
      if (first < 0) first = v;
      pairs.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    }
    for (let k = 0; k < Math.min(4, pairs.length); k++) {
      index[4 * v + k] = pairs[k][0];
      weight[4 * v + k] = pairs[k][1];
    }
  }
  return { index, weight, reduced: { vertices: reduced, first }, outOfRange };
}

/** Points drawn this many pixels wide (a marker, 14 px, still covers one). */
const POINT_SIZE = 5;

/** PointsMaterial with three.js's skinning chunks (its shader has none; they do nothing unskinned). */
function pointsMaterial() {
  const m = new THREE.PointsMaterial({ vertexColors: true, size: POINT_SIZE, sizeAttenuation: false });
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader
      .replace('#include <morphtarget_pars_vertex>', '$&\n#include <skinning_pars_vertex>')
      .replace('#include <morphtarget_vertex>', '$&\n#include <skinbase_vertex>\n#include <skinning_vertex>');
  };
  return m;
}

const skinnedKinds = new Map();

/**
 * A skinned variant of three.js's Points, Line, LineLoop or LineSegments (three.js skins
 * Meshes only): marked `isSkinnedMesh`, the flag its renderer reads to skin on the GPU
 * (USE_SKINNING, the skeleton's update and bone texture, the bind matrices), with
 * SkinnedMesh's attached bind mode, and its skinning on the CPU for `getVertexPosition`
 * (where a vertex is drawn, for selecting it) and `computeBoundingBox`.
 */
function skinnedKind(Base) {
  let Kind = skinnedKinds.get(Base);
  if (!Kind) {
    Kind = class extends Base {
      constructor(geometry, material) {
        super(geometry, material);
        this.isSkinnedMesh = true;
        this.bindMode = THREE.AttachedBindMode;
        this.bindMatrix = new THREE.Matrix4();
        this.bindMatrixInverse = new THREE.Matrix4();
        this.boundingBox = null;
        this.skeleton = null;
        // Posed or animated, it leaves the rest pose's bounds: never culled.
        this.frustumCulled = false;
      }

      bind(skeleton, bindMatrix = new THREE.Matrix4()) {
        this.skeleton = skeleton;
        this.bindMatrix.copy(bindMatrix);
        this.bindMatrixInverse.copy(bindMatrix).invert();
      }

      updateMatrixWorld(force) {
        super.updateMatrixWorld(force);
        this.bindMatrixInverse.copy(this.matrixWorld).invert();
      }

      applyBoneTransform(index, target) {
        return THREE.SkinnedMesh.prototype.applyBoneTransform.call(this, index, target);
      }

      getVertexPosition(index, target) {
        target.fromBufferAttribute(this.geometry.getAttribute('position'), index);
        return this.applyBoneTransform(index, target);
      }

      computeBoundingBox() {
        this.boundingBox ??= new THREE.Box3();
        this.boundingBox.makeEmpty();
        const v = new THREE.Vector3();
        const count = this.geometry.getAttribute('position').count;
        for (let i = 0; i < count; i++) this.boundingBox.expandByPoint(this.getVertexPosition(i, v));
      }
    };
    skinnedKinds.set(Base, Kind);
  }
  return Kind;
}

/** The three.js object kind of glTF `mode` (0 POINTS … 3 LINE_STRIP; anything else: triangles). */
const LINE_KINDS = { 1: THREE.LineSegments, 2: THREE.LineLoop, 3: THREE.Line };

/** The skin's root joint: the first joint whose node's parent is no joint of the skin. */
function rootJoint(skin, parent) {
  const joints = new Set(skin.joints);
  const j = skin.joints.findIndex((n) => !joints.has(parent[n]));
  return Math.max(0, j);
}

/**
 * Builds the scene. `wasm` is the opened Inspector; `scene` its description. Returns the
 * root group, the objects per node, the meshes per primitive, clips and what the drawing
 * changed (`display`) or could not show (`problems`).
 */
export function buildScene(wasm, scene) {
  const problems = [...scene.problems];
  const parent = parents(scene.nodes, problems);
  const isJoint = new Set(scene.skins.flatMap((s) => s.joints));
  const objects = scene.nodes.map((node, i) => {
    const obj = isJoint.has(i) ? new THREE.Bone() : new THREE.Object3D();
    obj.name = node.name;
    obj.userData.node = i;
    transform(obj, node);
    return obj;
  });
  parent.forEach((p, i) => {
    if (p >= 0) objects[p].add(objects[i]);
  });
  const group = new THREE.Group();
  const tops = topmost(parent);
  const top = (i) => tops[i];
  const roots = new Set(scene.roots.filter((r) => r >= 0 && r < objects.length).map(top));
  if (roots.size === 0) parent.forEach((p, i) => p < 0 && roots.add(i));
  // Joints outside the scene still move their meshes: their tops join the group too.
  for (const j of isJoint) if (j < objects.length) roots.add(top(j));
  for (const r of roots) group.add(objects[r]);
  group.updateMatrixWorld(true);

  const skeletons = scene.skins.map((skin, s) => {
    const ibm = wasm.inverseBindMatrices(s);
    const bones = skin.joints.map((j) => objects[j] ?? new THREE.Bone());
    const inverses = skin.joints.map((_, k) => new THREE.Matrix4().fromArray(ibm, 16 * k));
    return new THREE.Skeleton(bones, inverses);
  });

  const display = {
    unweighted: { vertices: 0, first: -1 },
    normalized: { vertices: 0, first: -1 },
    reduced: { vertices: 0, first: -1 },
    outOfRange: { vertices: 0, first: -1 },
  };
  const add = (into, c) => {
    if (c.vertices > 0 && into.first < 0) into.first = c.first;
    into.vertices += c.vertices;
  };
  const meshes = [];
  scene.primitives.forEach((info, p) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(wasm.positions(p), 3));
    const index = wasm.indices(p);
    if (index) geometry.setIndex(new THREE.BufferAttribute(index, 1));
    const sets = Array.from({ length: info.setCount }, (_, s) => ({ joints: wasm.joints(p, s), weights: wasm.weights(p, s) }));
    const colour = new Float32Array(info.vertexCount * 3).fill(0.6);
    geometry.setAttribute('color', new THREE.Float32BufferAttribute(colour, 3));
    const skinned = info.setCount > 0 && info.skin !== null && info.skin !== undefined;
    if (skinned) {
      const four = heaviestFour(sets, info.vertexCount, scene.skins[info.skin].joints.length);
      add(display.reduced, four.reduced);
      add(display.outOfRange, four.outOfRange);
      const shown = displayWeights(four.index, four.weight, rootJoint(scene.skins[info.skin], parent));
      add(display.unweighted, shown.unweighted);
      add(display.normalized, shown.normalized);
      const wide = scene.skins[info.skin].joints.length > 65536;
      geometry.setAttribute(
        'skinIndex',
        wide ? new THREE.Uint32BufferAttribute(four.index, 4) : new THREE.Uint16BufferAttribute(Uint16Array.from(four.index), 4),
      );
      geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(four.weight, 4));
    }
    geometry.computeBoundingBox();
    geometry.computeBoundingSphere();
    // Points and lines are drawn, coloured, skinned and selected as triangles are.
    const Plain = info.mode === 0 ? THREE.Points : LINE_KINDS[info.mode] ?? THREE.Mesh;
    const material =
      info.mode === 0
        ? pointsMaterial()
        : Plain === THREE.Mesh
          ? new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide })
          : new THREE.LineBasicMaterial({ vertexColors: true });
    const drawn = [];
    for (const n of info.nodes) {
      const node = scene.nodes[n];
      const skin = node.skin ?? null;
      const Kind = skinned && skin !== null && skeletons[skin] ? (Plain === THREE.Mesh ? THREE.SkinnedMesh : skinnedKind(Plain)) : Plain;
      const mesh = new Kind(geometry, material);
      mesh.name = `mesh ${info.mesh} primitive ${info.primitive}`;
      objects[n].add(mesh);
      mesh.updateMatrixWorld(true);
      // glTF skins ignore the mesh node's transform: vertex = Σ w · joint world · IBM · p.
      // three.js ("attached" mode) computes world · world⁻¹ · Σ w · bone · boneInverse ·
      // bindMatrix · p, so the bind matrix is the identity.
      if (mesh.isSkinnedMesh) mesh.bind(skeletons[skin], new THREE.Matrix4());
      drawn.push(mesh);
    }
    meshes.push({ info, geometry, sets, drawn });
  });

  const clips = scene.animations.map((a, i) => {
    const tracks = [];
    a.channels.forEach((c, k) => {
      const obj = objects[c.node];
      if (!obj) return;
      const times = wasm.times(i, k);
      let values = wasm.values(i, k);
      const width = c.path === 'rotation' ? 4 : 3;
      if (c.interpolation === 'CUBICSPLINE') {
        // The keyframe values only (the middle of in-tangent, value, out-tangent),
        // interpolated linearly: the tangents are not drawn.
        const kept = new Float32Array(times.length * width);
        for (let t = 0; t < times.length; t++) kept.set(values.subarray((3 * t + 1) * width, (3 * t + 2) * width), t * width);
        values = kept;
      }
      const name = `${obj.uuid}.${c.path === 'translation' ? 'position' : c.path === 'rotation' ? 'quaternion' : 'scale'}`;
      const Track = c.path === 'rotation' ? THREE.QuaternionKeyframeTrack : THREE.VectorKeyframeTrack;
      const mode = c.interpolation === 'STEP' ? THREE.InterpolateDiscrete : THREE.InterpolateLinear;
      tracks.push(new Track(name, times, values, mode));
    });
    return new THREE.AnimationClip(a.name, -1, tracks);
  });
  if (scene.animations.some((a) => a.channels.some((c) => c.interpolation === 'CUBICSPLINE'))) {
    problems.push('CUBICSPLINE channels are played through their keyframe values, linearly');
  }
  group.updateMatrixWorld(true);
  return { group, objects, parent, meshes, skeletons, clips, display, problems };
}
