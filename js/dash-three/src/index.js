// dash-three: a three.js loader for DashVertex files, on dash's WebAssembly module.
//
// DashLoader follows three.js loader conventions (it extends Loader; load, loadAsync,
// parse, parseAsync) and gives a SkinnedMesh-ready result: a BufferGeometry with
// position, skinIndex and skinWeight, and the Skeleton of the file's bones in their bind
// pose. A file with more than four influences per vertex is reduced to the heaviest four
// by the dash reducer (unit normalization); what that dropped is in `loader.lastReport`
// and in a console warning, never silent.

import {
  Bone,
  BufferGeometry,
  FileLoader,
  Float32BufferAttribute,
  Loader,
  Mesh,
  MeshStandardMaterial,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
  Uint32BufferAttribute,
} from 'three';

/** The decode + validate module, and the one with the reducer and encoder too. */
const MODULES = {
  core: new URL('../wasm/dash_wasm_core.js', import.meta.url),
  full: new URL('../wasm/dash_wasm.js', import.meta.url),
};

const instances = {};

/**
 * The WebAssembly module `kind` ("core": decode and validate; "full": also reduce and
 * encode), fetched and instantiated once.
 */
export function dashWasm(kind = 'core') {
  if (!instances[kind]) {
    instances[kind] = import(MODULES[kind].href).then(
      async (m) => {
        await m.default();
        return m;
      },
      (e) => {
        delete instances[kind]; // a failed fetch may be retried
        throw e;
      },
    );
  }
  return instances[kind];
}

/** Bytes of an ArrayBuffer, a typed array or a string. */
function bytesOf(data) {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/**
 * The reducer's settings for three.js: four influences, weights summing to 1. A vertex
 * without influence stays empty (`empty: 'zero'`) rather than failing the whole file: it
 * is then drawn as the file means (bound to the root, see `displayWeights`).
 */
export const THREE_REDUCTION = Object.freeze({ maxInfluences: 4, normalize: 'unit', empty: 'zero' });

/**
 * Validates a file: the report `dash-validate --format json` prints for it, as an object.
 */
export async function validate(data, name = '<bytes>', options = undefined) {
  const wasm = await dashWasm('core');
  return JSON.parse(wasm.validate(bytesOf(data), name, options));
}

/** A three.js attribute of bone indices (16- or 32-bit as the module chose). */
function indexAttribute(array) {
  return array instanceof Uint32Array
    ? new Uint32BufferAttribute(array, 4)
    : new Uint16BufferAttribute(array, 4);
}

/** Bones of the file's skeleton in their bind pose, parented; `problems` gets notes. */
function buildBones(model, problems) {
  const names = model.boneNames();
  const parents = model.boneParents();
  const t = model.bonePositions();
  const r = model.boneRotations();
  const s = model.boneScales();
  const bones = names.map((name, i) => {
    const bone = new Bone();
    bone.name = name;
    bone.position.fromArray(t, 3 * i);
    bone.quaternion.fromArray(r, 4 * i);
    bone.scale.fromArray(s, 3 * i);
    return bone;
  });
  const roots = [];
  parents.forEach((p, i) => {
    if (p >= 0 && p < i) {
      bones[p].add(bones[i]);
    } else {
      if (p !== -1) problems.push(`bone ${i} (${names[i]}): parent ${p} is not an earlier bone; made a root`);
      roots.push(bones[i]);
    }
  });
  return { bones, roots };
}

/** Bones for a skinned file without a skeleton: one unnamed bone per index used, at rest. */
function placeholderBones(skinIndex) {
  let highest = -1;
  for (const j of skinIndex) if (j > highest) highest = j;
  const bones = Array.from({ length: highest + 1 }, (_, i) => {
    const bone = new Bone();
    bone.name = `#${i}`;
    return bone;
  });
  return { bones, roots: bones.slice() };
}

/**
 * Makes the weights draw what the file means, in place. three.js skins with the weights as
 * given, so a vertex without influences would collapse to the origin and one whose
 * weights sum below 1 would shrink toward it; DashVertex allows both (a vertex that needs
 * no skinning; weights that need not sum to 1). A vertex without positive weight is bound
 * to the root bone with weight 1 (it stays where the file puts it and moves with the
 * root); other weights are divided by their sum for display. Returns what was changed.
 * Exported for other front ends on the same rule (the skin inspector in `web/` draws glTF
 * primitives with it).
 */
export function displayWeights(skinIndex, skinWeight, root) {
  const unweighted = { vertices: 0, first: -1 };
  const normalized = { vertices: 0, first: -1 };
  const count = (c, v) => {
    c.vertices += 1;
    if (c.first < 0) c.first = v;
  };
  for (let v = 0, o = 0; o + 3 < skinWeight.length; v++, o += 4) {
    const sum = skinWeight[o] + skinWeight[o + 1] + skinWeight[o + 2] + skinWeight[o + 3];
    if (!(sum > 0)) {
      skinIndex.fill(0, o, o + 4);
      skinIndex[o] = root;
      skinWeight.fill(0, o, o + 4);
      skinWeight[o] = 1;
      count(unweighted, v);
    } else if (Math.abs(sum - 1) > DISPLAY_SUM_TOLERANCE) {
      for (let k = 0; k < 4; k++) skinWeight[o + k] /= sum;
      count(normalized, v);
    }
  }
  return { unweighted, normalized };
}

/** How far from 1 a weight sum may be and be drawn as given (float32 rounding of four). */
const DISPLAY_SUM_TOLERANCE = 1e-6;

/** A loaded DashVertex file, ready for a SkinnedMesh. */
class DashModel {
  constructor(geometry, skeleton, bones, roots, report) {
    this.geometry = geometry;
    this.skeleton = skeleton;
    this.bones = bones;
    this.rootBones = roots;
    this.report = report;
  }

  /**
   * A SkinnedMesh of the geometry bound to the skeleton in its bind pose (a Mesh for an
   * unskinned file). The bones become the mesh's children: call once per model.
   */
  createMesh(material = new MeshStandardMaterial()) {
    if (!this.skeleton) return new Mesh(this.geometry, material);
    const mesh = new SkinnedMesh(this.geometry, material);
    for (const root of this.rootBones) mesh.add(root);
    mesh.bind(this.skeleton);
    return mesh;
  }
}

/** Turns a decoded model (and, when it had more than four influences, its reduction) into a DashModel. */
function toModel(source, model, reduction, name) {
  const problems = [];
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(model.positions(), 3));
  let skeleton = null;
  let bones = [];
  let roots = [];
  let display = null;
  if (model.skinned) {
    const skinIndex = model.skinIndex(0);
    const skinWeight = model.skinWeight(0);
    ({ bones, roots } = model.hasSkeleton ? buildBones(model, problems) : placeholderBones(skinIndex));
    if (!model.hasSkeleton) problems.push('the file has no skeleton: one bone at rest per bone index');
    // The root: bone 0 in a valid file (the first root bone otherwise).
    const root = Math.max(0, bones.indexOf(roots[0]));
    display = displayWeights(skinIndex, skinWeight, root);
    if (display.unweighted.vertices > 0) {
      problems.push(
        `${display.unweighted.vertices} vertices have no influence (first: vertex ${display.unweighted.first}): bound to the root bone ${bones[root]?.name ?? root} with weight 1, so they stay where the file puts them`,
      );
    }
    if (display.normalized.vertices > 0) {
      problems.push(
        `${display.normalized.vertices} vertices have weights that do not sum to 1 (first: vertex ${display.normalized.first}): drawn divided by their sum`,
      );
    }
    geometry.setAttribute('skinIndex', indexAttribute(skinIndex));
    geometry.setAttribute('skinWeight', new Float32BufferAttribute(skinWeight, 4));
    for (const root of roots) root.updateMatrixWorld(true);
    skeleton = new Skeleton(bones);
  }
  geometry.computeBoundingBox();
  geometry.computeBoundingSphere();
  const report = {
    file: name,
    format: source.format,
    vertices: source.vertexCount,
    bones: source.boneCount,
    influenceSets: source.setCount,
    reduced: reduction !== null,
    reduction: reduction ? reduction.report : null,
    droppedWeight: reduction ? reduction.report.droppedWeight : null,
    display,
    problems,
  };
  return new DashModel(geometry, skeleton, bones, roots, report);
}

/**
 * Loads DashVertex JSON, DMX containers and raw records for three.js.
 *
 * ```js
 * const { geometry, skeleton } = await new DashLoader().loadAsync('rig.dmx');
 * ```
 */
export class DashLoader extends Loader {
  constructor(manager) {
    super(manager);
    /** Reducer settings for files with more than four influences per vertex. */
    this.reduction = { ...THREE_REDUCTION };
    /** Whether to warn on the console when a reduction drops weight. */
    this.warnOnDrop = true;
    /**
     * Whether to warn on the console when weights are changed for display (vertices
     * without influence bound to the root, sums other than 1 divided out).
     */
    this.warnOnDisplay = true;
    /** The report of the last file parsed (what was read, what reduction dropped). */
    this.lastReport = null;
  }

  /** Fetches `url` and calls `onLoad` with the parsed model (see `parse`). */
  load(url, onLoad, onProgress, onError) {
    const loader = new FileLoader(this.manager);
    loader.setPath(this.path);
    loader.setResponseType('arraybuffer');
    loader.setRequestHeader(this.requestHeader);
    loader.setWithCredentials(this.withCredentials);
    loader.load(
      url,
      (buffer) => {
        this.parse(buffer, url, onLoad, (e) => {
          if (onError) onError(e);
          else console.error(e);
          this.manager.itemError(url);
        });
      },
      onProgress,
      onError,
    );
  }

  /**
   * Parses a file's bytes (`name`, a file name or URL, tells raw records by their
   * extension) and calls `onLoad` with the model, or `onError` with a DashError.
   */
  parse(data, name, onLoad, onError) {
    this.parseAsync(data, name).then(onLoad, (e) => {
      if (onError) onError(e);
      else console.error(e);
    });
  }

  /** `parse` as a promise. */
  async parseAsync(data, name = '') {
    const bytes = bytesOf(data);
    const core = await dashWasm('core');
    let model = core.decode(bytes, name);
    let source = model;
    let reduction = null;
    if (model.skinned && model.setCount > 1) {
      // Five or more influences: the dash reducer picks the heaviest four.
      const full = await dashWasm('full');
      source = full.decode(bytes, name);
      reduction = source.reduce(this.reduction);
      model = reduction.model;
    }
    let result;
    try {
      result = toModel(source, model, reduction, name);
    } finally {
      // The WebAssembly objects are copied out: release their memory now.
      for (const o of new Set([source, model, reduction])) o?.free();
    }
    this.lastReport = result.report;
    const lost = result.report.droppedWeight;
    if (this.warnOnDrop && lost && lost.vertices > 0) {
      console.warn(
        `DashLoader: ${name || 'file'}: reduced to ${this.reduction.maxInfluences} influences; ` +
          `${lost.vertices} vertices lost weight (total ${lost.total.toPrecision(4)}, ` +
          `worst vertex ${lost.worst.vertex}: ${(100 * lost.worst.share).toFixed(2)} %)`,
      );
    }
    const shown = result.report.display;
    if (this.warnOnDisplay && shown && (shown.unweighted.vertices > 0 || shown.normalized.vertices > 0)) {
      const what = result.report.problems.filter((p) => p.includes('vertices have'));
      console.warn(`DashLoader: ${name || 'file'}: drawn as the file means: ${what.join('; ')}`);
    }
    return result;
  }
}

export { DashModel };
