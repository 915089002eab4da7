// An independent glTF reader for the inspector's browser test (node, no dash code): the
// first primitive with JOINTS_0/WEIGHTS_0, its sets read straight from the buffers, and
// the per-vertex numbers each colour mode should show, computed here from scratch.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const SIZE = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };

/** The document and its buffers from `paths` (a .glb, or a .gltf and its files). */
export function load(paths) {
  const main = paths.find((p) => /\.(gltf|glb)$/i.test(p)) ?? paths[0];
  const bytes = readFileSync(main);
  let json;
  let bin = null;
  if (bytes.readUInt32LE(0) === 0x46546c67) {
    const jsonLength = bytes.readUInt32LE(12);
    json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8'));
    const at = 20 + jsonLength;
    if (at + 8 <= bytes.length) bin = bytes.subarray(at + 8, at + 8 + bytes.readUInt32LE(at));
  } else {
    json = JSON.parse(bytes.toString('utf8'));
  }
  const others = new Map(paths.filter((p) => p !== main).map((p) => [basename(p), p]));
  const buffers = (json.buffers ?? []).map((b) => {
    if (b.uri === undefined) return bin;
    if (b.uri.startsWith('data:')) return Buffer.from(b.uri.slice(b.uri.indexOf(',') + 1), 'base64');
    const p = others.get(decodeURIComponent(b.uri));
    return p ? readFileSync(p) : null;
  });
  return { json, buffers };
}

/** Accessor `i` as an array of elements (arrays of numbers), or null if it cannot be read here. */
function accessor({ json, buffers }, i) {
  const a = json.accessors?.[i];
  if (!a || a.sparse || a.bufferView === undefined) return null;
  const view = json.bufferViews[a.bufferView];
  const buf = buffers[view.buffer];
  if (!buf) return null;
  const size = SIZE[a.componentType];
  const n = COMPONENTS[a.type];
  const stride = view.byteStride ?? size * n;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const start = (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
  const read = {
    5120: (o) => dv.getInt8(o),
    5121: (o) => dv.getUint8(o),
    5122: (o) => dv.getInt16(o, true),
    5123: (o) => dv.getUint16(o, true),
    5125: (o) => dv.getUint32(o, true),
    5126: (o) => dv.getFloat32(o, true),
  }[a.componentType];
  const out = [];
  for (let e = 0; e < a.count; e++) {
    const el = [];
    for (let c = 0; c < n; c++) el.push(read(start + e * stride + c * size));
    out.push(el);
  }
  return { data: out, componentType: a.componentType };
}

/**
 * The first primitive with JOINTS_0 and WEIGHTS_0: `{ mesh, primitive, count, sets,
 * jointNames }`, each set `{ joints, weights }` of per-vertex arrays of four; weights
 * stored as integers divided by 255 or 65535 and rounded to binary32 as glTF means them.
 */
export function firstSkinned(doc) {
  const { json } = doc;
  for (const [m, mesh] of (json.meshes ?? []).entries()) {
    for (const [p, prim] of (mesh.primitives ?? []).entries()) {
      const attrs = prim.attributes ?? {};
      if (attrs.JOINTS_0 === undefined || attrs.WEIGHTS_0 === undefined) continue;
      const position = accessor(doc, attrs.POSITION);
      if (!position) return null;
      const sets = [];
      for (let n = 0; attrs[`JOINTS_${n}`] !== undefined && attrs[`WEIGHTS_${n}`] !== undefined; n++) {
        const j = accessor(doc, attrs[`JOINTS_${n}`]);
        const w = accessor(doc, attrs[`WEIGHTS_${n}`]);
        if (!j || !w) return null;
        const scale = { 5126: 1, 5121: 255, 5123: 65535 }[w.componentType];
        sets.push({ joints: j.data, weights: w.data.map((e) => e.map((x) => Math.fround(x / scale))) });
      }
      const user = (json.nodes ?? []).filter((nd) => nd.mesh === m && nd.skin !== undefined);
      const skins = user.map((nd) => json.skins[nd.skin]).sort((a, b) => a.joints.length - b.joints.length);
      const joints = skins[0]?.joints ?? [];
      const jointNames = joints.map((n) => json.nodes[n]?.name ?? `node${n}`);
      return { mesh: m, primitive: p, count: position.data.length, positions: position.data, sets, jointNames, attributes: attrs };
    }
  }
  return null;
}

/** The numbers of each colour mode, per vertex, computed here. */
export const expected = {
  influences: (p) => p.sets.reduce((acc, s) => acc.map((x, v) => x + s.weights[v].filter((w) => w !== 0).length), new Array(p.count).fill(0)),
  sum: (p) => {
    const out = new Array(p.count).fill(0);
    for (const s of p.sets) for (let v = 0; v < p.count; v++) for (const w of s.weights[v]) out[v] += w;
    return out;
  },
  bone: (p, name) => {
    const out = new Array(p.count).fill(0);
    for (const s of p.sets) {
      for (let v = 0; v < p.count; v++) {
        for (let k = 0; k < 4; k++) if (p.jointNames[s.joints[v][k]] === name) out[v] += s.weights[v][k];
      }
    }
    return out;
  },
  /** Repeated joints merged, positive finite weights ordered by weight then joint, K kept. */
  dropped: (p, k) => {
    const out = [];
    for (let v = 0; v < p.count; v++) {
      const by = new Map();
      for (const s of p.sets) {
        for (let i = 0; i < 4; i++) {
          const w = s.weights[v][i];
          if (w > 0 && Number.isFinite(w)) by.set(s.joints[v][i], (by.get(s.joints[v][i]) ?? 0) + w);
        }
      }
      const list = [...by].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      out.push(list.slice(k).reduce((t, [, w]) => t + w, 0));
    }
    return out;
  },
  /** 1 where one of the report's diagnostics names the vertex within this primitive. */
  diagnostics: (p, report) => {
    const out = new Array(p.count).fill(0);
    const base = `/meshes/${p.mesh}/primitives/${p.primitive}`;
    const accessors = new Set(Object.values(p.attributes));
    for (const d of report.files[0].diagnostics) {
      const { vertex, pointer = '' } = d.location ?? {};
      if (vertex === undefined || vertex >= p.count) continue;
      const m = pointer.match(/^\/accessors\/(\d+)/);
      if (pointer === base || pointer.startsWith(`${base}/`) || (m && accessors.has(Number(m[1])))) out[vertex] = 1;
    }
    return out;
  },
};
