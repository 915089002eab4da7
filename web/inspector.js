// The skin inspector: files dropped or opened are validated and decoded by dash's
// inspector WebAssembly module (web/wasm/dash_inspect.js), drawn with three.js, and
// coloured by what their weights hold. Nothing leaves the page.
//
// Script interface (`window.dashInspector`, see web/README.md): `report`, `values(mode,
// arg)`, `colorBy(mode, arg)`, `select(i)`, `open(files)`, plus `display`, `timings`,
// `reducedDigest(k)`, `fixedDigest()`, `drawn`, `screenPosition(i)`, `render()` and
// `pixels()` for tests; `document.body.dataset.state` is "loading",
// "ready" or "error".

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import init, { Inspector } from './wasm/dash_inspect.js';
import { buildScene } from './build.js';
import * as V from './values.js';
import { renderReport, highlightItem } from './report.js';

const $ = (id) => document.getElementById(id);
const canvas = $('view');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
const world = new THREE.Scene();
world.background = new THREE.Color(0x1b1d23);
world.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.2);
sun.position.set(3, 5, 4);
world.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
camera.position.set(0, 1, 5);
const controls = new OrbitControls(camera, canvas);
const timer = new THREE.Timer();
const ready = init();

/** What is shown: the built scene and the page's choices. */
let shown = null;
let skeletonHelper = null;
let marker = null;
let boxHelper = null;
let mixer = null;
let action = null;
let mode = 'influences';
let pickedBone = null;

function setState(state, text) {
  document.body.dataset.state = state;
  $('status').textContent = text;
  $('status').className = state === 'error' ? 'error' : '';
}

function resize() {
  const w = canvas.clientWidth || 1;
  const h = canvas.clientHeight || 1;
  if (canvas.width !== w || canvas.height !== h) renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}

function render() {
  resize();
  if (marker && marker.userData.follow) marker.position.copy(marker.userData.follow());
  renderer.render(world, camera);
}

renderer.setAnimationLoop(() => {
  timer.update();
  const dt = timer.getDelta();
  if (mixer && action && !action.paused) mixer.update(dt);
  controls.update();
  render();
});

function clear() {
  if (shown) world.remove(shown.group);
  for (const o of [skeletonHelper, marker, boxHelper]) if (o) world.remove(o);
  skeletonHelper = marker = boxHelper = mixer = action = null;
  shown = null;
  pickedBone = null;
}

/** The primitive the colour modes and `values()` speak of: the first with influences. */
function primary() {
  return shown?.prims.find((p) => p.sets.length > 0) ?? null;
}

/** Per vertex of decoded primitive `p`, what mode `m` shows. */
function valuesOf(p, m, a) {
  switch (m) {
    case 'influences':
      return V.influences(p);
    case 'bone':
      return V.boneWeight(p, a);
    case 'sum':
      return V.weightSum(p);
    case 'dropped':
      return p.sets.length ? Float64Array.from(shown.wasm.dropped(p.index, Number(a ?? 4), $('fit').checked)) : new Float64Array(p.vertexCount);
    case 'diagnostics':
      return V.diagnosed(p);
    default:
      throw new Error(`unknown colour mode ${m} (influences, bone, sum, dropped, diagnostics)`);
  }
}

function colorBy(m, a) {
  if (!shown) throw new Error('no file shown');
  if (m === 'bone' && a === undefined) a = pickedBone ?? primary()?.jointNames[0];
  if (m === 'dropped' && a === undefined) a = Number($('k').value);
  mode = m;
  for (const p of shown.prims) {
    const rgb = V.colours(m, valuesOf(p, m, a));
    const attr = p.geometry.getAttribute('color');
    attr.array.set(rgb);
    attr.needsUpdate = true;
  }
  document.querySelector(`input[name=mode][value=${m}]`).checked = true;
  if (m === 'bone') $('bone-picked').textContent = a ?? '(pick one below)';
  if (m === 'dropped') {
    $('k').value = String(a);
    $('k-out').textContent = String(a);
  }
  $('legend').replaceChildren(
    ...V.legend(m).map(([label, c]) => {
      const s = document.createElement('span');
      s.textContent = label;
      s.style.background = `rgb(${c.map((x) => Math.round(255 * x)).join(',')})`;
      return s;
    }),
  );
  render();
}

/** glTF `mode` names. */
const TOPOLOGY = ['POINTS', 'LINES', 'LINE_LOOP', 'LINE_STRIP', 'TRIANGLES', 'TRIANGLE_STRIP', 'TRIANGLE_FAN'];

/** The primitive (index into shown.prims) and vertex a diagnostic's location names. */
function locate(d, strict = false) {
  const loc = d.location ?? {};
  const ptr = loc.pointer ?? '';
  let prim = shown.prims.find((p) => ptr === p.pointer || ptr.startsWith(`${p.pointer}/`));
  if (!prim) {
    const m = ptr.match(/^\/accessors\/(\d+)/);
    if (m) prim = shown.prims.find((p) => p.accessors.has(Number(m[1])));
  }
  // A vertex with no primitive named: the first skinned one (for framing only).
  if (!prim && !strict && loc.vertex !== undefined) prim = primary();
  return { prim, vertex: loc.vertex };
}

/** Where vertex `v` of primitive `p` is drawn now (skinning applied), in world space. */
function vertexWorld(p, v) {
  const mesh = p.drawn[0];
  const out = new THREE.Vector3();
  if (!mesh) return out.fromBufferAttribute(p.geometry.getAttribute('position'), v);
  // Meshes and skinned points and lines (build.js) skin it; unskinned points and lines
  // draw the file's position.
  if (mesh.getVertexPosition) mesh.getVertexPosition(v, out);
  else out.fromBufferAttribute(p.geometry.getAttribute('position'), v);
  return out.applyMatrix4(mesh.matrixWorld);
}

/** The distance from vertex `v` of primitive `p` to the nearest vertex elsewhere, as the file puts them (0: none). */
function nearestOther(p, v) {
  const pos = p.geometry.getAttribute('position');
  const at = new THREE.Vector3().fromBufferAttribute(pos, v);
  const other = new THREE.Vector3();
  let best = Infinity;
  for (let i = 0; i < pos.count; i++) {
    const d = other.fromBufferAttribute(pos, i).distanceTo(at);
    if (d > 0 && d < best) best = d;
  }
  return Number.isFinite(best) ? best : 0;
}

function frame(center, radius) {
  const dir = camera.position.clone().sub(controls.target).normalize();
  controls.target.copy(center);
  camera.position.copy(center).addScaledVector(dir, Math.max(radius, 1e-3) * 2.6);
  camera.near = Math.max(radius / 500, 1e-4);
  camera.far = radius * 500 + 10;
  camera.updateProjectionMatrix();
  controls.update();
}

function select(i) {
  if (!shown) throw new Error('no file shown');
  const d = shown.report.files[0].diagnostics[i];
  if (!d) throw new Error(`no diagnostic ${i}`);
  for (const o of [marker, boxHelper]) if (o) world.remove(o);
  marker = boxHelper = null;
  highlightItem(i);
  const { prim, vertex } = locate(d);
  const out = { index: i, code: d.code, primitive: prim ? prim.index : null, vertex: vertex ?? null, position: null };
  if (prim && vertex !== undefined && vertex < prim.vertexCount) {
    const geom = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0], 3));
    marker = new THREE.Points(geom, new THREE.PointsMaterial({ color: 0xffffff, size: 14, sizeAttenuation: false, depthTest: false }));
    marker.renderOrder = 10;
    marker.userData.follow = () => vertexWorld(prim, vertex);
    marker.position.copy(marker.userData.follow());
    world.add(marker);
    out.position = marker.position.toArray();
    // Points and lines have no surface around the vertex: its nearest neighbour in view too
    // (up to the whole model's size).
    const near = prim.info.mode <= 3 ? Math.min(shown.radius, 2 * nearestOther(prim, vertex)) : 0;
    frame(marker.position, Math.max(shown.radius * 0.35, near));
  } else if (prim && prim.drawn[0]) {
    boxHelper = new THREE.BoxHelper(prim.drawn[0], 0xffffff);
    world.add(boxHelper);
    const sphere = prim.geometry.boundingSphere;
    frame(sphere.center.clone().applyMatrix4(prim.drawn[0].isSkinnedMesh ? new THREE.Matrix4() : prim.drawn[0].matrixWorld), sphere.radius);
  } else {
    // A node, or a skin's joint: marked where the node is now; anything else frames the model.
    const ptr = d.location?.pointer ?? '';
    const n = ptr.match(/^\/nodes\/(\d+)/);
    const j = ptr.match(/^\/skins\/(\d+)\/joints\/(\d+)/);
    const node = n ? Number(n[1]) : j ? shown.scene.skins[Number(j[1])]?.joints[Number(j[2])] : undefined;
    const obj = node !== undefined ? shown.objects[node] : null;
    if (obj) {
      const geom = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0], 3));
      marker = new THREE.Points(geom, new THREE.PointsMaterial({ color: 0xffcc00, size: 14, sizeAttenuation: false, depthTest: false }));
      marker.renderOrder = 10;
      marker.userData.follow = () => obj.getWorldPosition(new THREE.Vector3());
      marker.position.copy(marker.userData.follow());
      world.add(marker);
      out.position = marker.position.toArray();
      out.node = node;
    }
    frame(shown.center, shown.radius);
  }
  render();
  return out;
}

function buildTree() {
  const tree = $('tree');
  tree.replaceChildren();
  if (!shown) return;
  const { objects, parent } = shown.built;
  const joints = new Set(primary()?.jointNodes ?? []);
  const items = objects.map((obj, i) => {
    const li = document.createElement('li');
    const span = document.createElement('span');
    span.textContent = obj.name;
    if (joints.has(i)) span.className = 'joint';
    span.dataset.node = String(i);
    span.addEventListener('click', () => pick(i));
    li.append(span);
    return li;
  });
  const lists = new Map();
  items.forEach((li, i) => {
    const p = parent[i];
    if (p < 0) {
      tree.append(li);
      return;
    }
    if (!lists.has(p)) {
      const ul = document.createElement('ul');
      lists.set(p, ul);
      items[p].append(ul);
    }
    lists.get(p).append(li);
  });
}

/** Picks node `i`: the bone shown by the "bone" mode and posed by the sliders. */
function pick(i) {
  const obj = shown.objects[i];
  document.querySelectorAll('#tree span.picked').forEach((s) => s.classList.remove('picked'));
  document.querySelector(`#tree span[data-node="${i}"]`)?.classList.add('picked');
  pickedBone = obj.name;
  obj.userData.rest ??= obj.quaternion.clone();
  $('pose').hidden = false;
  $('pose-bone').textContent = obj.name;
  shown.posed = obj;
  for (const id of ['rx', 'ry', 'rz']) $(id).value = '0';
  colorBy('bone', obj.name);
}

function pose() {
  const obj = shown?.posed;
  if (!obj) return;
  const r = ['rx', 'ry', 'rz'].map((id) => THREE.MathUtils.degToRad(Number($(id).value)));
  obj.quaternion.copy(obj.userData.rest).multiply(new THREE.Quaternion().setFromEuler(new THREE.Euler(...r)));
  render();
}

function setupAnimations() {
  const sel = $('animations');
  sel.replaceChildren(new Option('(none)', ''));
  shown.built.clips.forEach((c, i) => sel.append(new Option(`${c.name} (${c.duration.toFixed(2)} s)`, String(i))));
  mixer = new THREE.AnimationMixer(shown.group);
  if (shown.built.clips.length) sel.value = '0';
}

function play(on) {
  if (!shown || !mixer) return false;
  const i = Number($('animations').value);
  const clip = shown.built.clips[i];
  if (!clip) return false;
  if (action && action.getClip() !== clip) action.stop();
  action = mixer.clipAction(clip);
  action.play();
  action.paused = !on;
  $('play').textContent = on ? 'pause' : 'play';
  return true;
}

/** True for FBX bytes: the binary magic, or ASCII FBX's header (spec/fbx.md §1). */
function isFbx(bytes) {
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).replace(/^\s*/, ''); // (the decoder drops a BOM)
  return head.startsWith('Kaydara FBX Binary  \0') || head.startsWith('; FBX') || head.startsWith('FBXHeaderExtension');
}

/** Opens files (File objects or `{ name, bytes }`): validates, decodes, draws, colours. */
async function open(files) {
  const t0 = performance.now();
  setState('loading', `reading ${files.length} file(s)…`);
  clear();
  api.report = null;
  try {
    await ready;
    const list = await Promise.all(
      [...files].map(async (f) => ({ name: f.name, bytes: f instanceof Blob ? new Uint8Array(await f.arrayBuffer()) : f.bytes })),
    );
    // FBX is read by the command line: ufbx's C library does not build for WebAssembly
    // with the toolchains the registries offer (spec/fbx.md §5).
    const fbx = list.find((f) => isFbx(f.bytes));
    if (fbx) {
      setState('error', `${fbx.name}: FBX needs the dash command line (its reader, ufbx, is C and does not build for WebAssembly): ` +
        `run \`dash-validate ${fbx.name}\` to check it, or \`dashvertex convert ${fbx.name} out.glb\` and drop out.glb here`);
      return false;
    }
    const t1 = performance.now();
    const wasm = new Inspector();
    for (const f of list) wasm.add(f.name, f.bytes);
    const decoded = wasm.open();
    const report = JSON.parse(wasm.reportJson);
    api.report = report;
    api.reportText = `${wasm.reportJson}\n`;
    renderReport($('report'), $('summary'), report, (i) => shown && select(i));
    const t2 = performance.now();
    if (!decoded) {
      setState('error', `${wasm.mainFile}: cannot be drawn: ${wasm.loadError}`);
      return false;
    }
    const scene = wasm.scene();
    if (scene.primitives.length === 0) {
      const why = scene.problems.length ? scene.problems.join('; ') : 'it has no mesh primitive with positions';
      // ("cannot be read for standard input" is the library's word for "no folder": here,
      // the files were not dropped.)
      const missing = scene.problems.some((p) => p.includes('is unavailable'));
      const hint = missing ? ' Drop the .gltf together with the .bin files it names.' : '';
      setState('error', `${wasm.mainFile}: nothing to draw: ${why}.${hint}`);
      return false;
    }
    const built = buildScene(wasm, scene);
    const prims = built.meshes.map((m, index) => {
      const info = m.info;
      const skin = info.skin !== null && info.skin !== undefined ? scene.skins[info.skin] : null;
      const jointNodes = skin ? skin.joints : [];
      const pointer = `/meshes/${info.mesh}/primitives/${info.primitive}`;
      const p = {
        index,
        info,
        pointer,
        accessors: new Set(Object.values(info.attributes).filter(Number.isInteger)),
        vertexCount: info.vertexCount,
        sets: m.sets,
        geometry: m.geometry,
        drawn: m.drawn,
        jointNodes,
        jointNames: jointNodes.map((n) => scene.nodes[n]?.name ?? `node${n}`),
        diagnosed: [],
      };
      return p;
    });
    for (const d of report.files[0].diagnostics) {
      const where = d.location?.vertex;
      if (where === undefined) continue;
      shown = { prims };
      const { prim } = locate(d, true);
      if (prim) prim.diagnosed.push(where);
    }
    const box = new THREE.Box3();
    for (const p of prims) {
      for (const mesh of p.drawn) {
        // A skinned mesh's box with its joints applied (at rest), in the mesh's space.
        if (mesh.isSkinnedMesh) mesh.computeBoundingBox();
        const b = (mesh.isSkinnedMesh ? mesh.boundingBox : p.geometry.boundingBox).clone();
        box.union(b.applyMatrix4(mesh.matrixWorld));
      }
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    shown = { wasm, scene, built, prims, report, group: built.group, objects: built.objects, center: sphere.center, radius: sphere.radius || 1, posed: null };
    world.add(built.group);
    skeletonHelper = new THREE.SkeletonHelper(built.group);
    skeletonHelper.visible = $('show-skeleton').checked;
    world.add(skeletonHelper);
    camera.position.set(sphere.center.x, sphere.center.y + sphere.radius * 0.3, sphere.center.z + sphere.radius * 2.6);
    frame(sphere.center, sphere.radius);
    const t3 = performance.now();
    colorBy('influences');
    buildTree();
    setupAnimations();
    const t4 = performance.now();
    api.display = built.display;
    api.problems = built.problems;
    const d = built.display;
    const said = [];
    if (d.unweighted.vertices) said.push(`${d.unweighted.vertices} vertices have no influence (first: vertex ${d.unweighted.first}): bound to their skin's root joint with weight 1, so they stay where the file puts them`);
    if (d.normalized.vertices) said.push(`${d.normalized.vertices} vertices have weights that do not sum to 1 (first: vertex ${d.normalized.first}): drawn divided by their sum`);
    if (d.outOfRange.vertices) said.push(`${d.outOfRange.vertices} vertices name joints their skin does not have (first: vertex ${d.outOfRange.first}): those influences are left out of the drawing`);
    if (d.reduced.vertices) said.push(`${d.reduced.vertices} vertices have more than four influences (first: vertex ${d.reduced.first}): drawn with the heaviest four`);
    if (said.length) console.warn(`dash inspector: ${wasm.mainFile}: drawn as the file means: ${said.join('; ')}`);
    api.timings = { read: t1 - t0, validateDecode: t2 - t1, build: t3 - t2, colourTree: t4 - t3, total: t4 - t1 };
    setState(
      'ready',
      `${wasm.mainFile}: ${prims.reduce((n, p) => n + p.vertexCount, 0)} vertices in ${prims.length} primitive(s); ` +
        `${(report.files[0].diagnostics ?? []).length} diagnostic(s) listed; shown in ${api.timings.total.toFixed(0)} ms` +
        (built.problems.length ? ` (not shown: ${built.problems.join('; ')})` : ''),
    );
    return true;
  } catch (e) {
    console.error(e);
    setState('error', `cannot show the file: ${e.message ?? e}`);
    return false;
  }
}

/**
 * The shown file reduced to `k` influences: the GLB bytes `dashvertex reduce IN -o
 * OUT.glb --max-influences K` writes (validated before they are handed over); with the
 * "fit" box ticked, those of `--fit`.
 */
function reduced(k) {
  if (!shown) throw new Error('no file shown');
  return shown.wasm.reduceToGlb(k, $('fit').checked);
}

/** The shown file repaired: the GLB bytes `dashvertex fix IN -o OUT.glb` writes. */
function fixed() {
  if (!shown) throw new Error('no file shown');
  return shown.wasm.fixToGlb();
}

/** Offers `make()`'s bytes as a download named `STEM.SUFFIX.glb`, or says why not. */
function download(make, suffix, what) {
  try {
    const bytes = make();
    const stem = (shown.wasm.mainFile ?? 'model').replace(/\.(gltf|glb)$/i, '');
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: 'model/gltf-binary' }));
    a.download = `${stem}.${suffix}.glb`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    $('status').textContent = `${a.download}: ${bytes.length} bytes, ${what}`;
  } catch (e) {
    $('status').textContent = `nothing downloaded: ${e.message ?? e}`;
  }
}

async function digest(bytes) {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return { length: bytes.length, sha256: Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('') };
}

/** How many distinct colours the last frame has, a hash of it, and the share drawn. */
function pixels() {
  render();
  const gl = renderer.getContext();
  const w = gl.drawingBufferWidth;
  const h = gl.drawingBufferHeight;
  const px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const colours = new Set();
  let drawn = 0;
  let hash = 2166136261;
  for (let i = 0; i < px.length; i += 4) {
    const c = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    colours.add(c);
    if (c !== 0x1b1d23) drawn++;
    hash = Math.imul(hash ^ c, 16777619) >>> 0;
  }
  return { width: w, height: h, colours: colours.size, drawn: drawn / (w * h), hash };
}

const api = {
  report: null,
  reportText: null,
  display: null,
  problems: [],
  timings: null,
  open,
  values(m, a) {
    const p = primary();
    if (!p) throw new Error('no skinned primitive');
    return Array.from(valuesOf(p, m, a));
  },
  colorBy,
  select,
  /** SHA-256 (hex) and length of the reduced GLB the download gives, for tests. */
  async reducedDigest(k) {
    return digest(reduced(k));
  },
  /** Ticks or clears the "fit" box, as a click does (the dropped colours follow). */
  setFit(on) {
    $('fit').checked = Boolean(on);
    $('fit').dispatchEvent(new Event('change'));
  },
  /** SHA-256 (hex) and length of the fixed GLB the download gives, for tests. */
  async fixedDigest() {
    return digest(fixed());
  },
  /** Where vertex `i` of the first skinned primitive is drawn on the canvas now (pixels from the top left). */
  screenPosition(i) {
    const p = primary();
    if (!p) throw new Error('no skinned primitive');
    resize();
    const v = vertexWorld(p, i).project(camera);
    return [((v.x + 1) / 2) * canvas.width, ((1 - v.y) / 2) * canvas.height];
  },
  /** What draws each primitive: its topology, the three.js object, whether it is skinned. */
  get drawn() {
    if (!shown) return [];
    return shown.prims.flatMap((p) =>
      p.drawn.map((o) => ({ primitive: p.index, topology: TOPOLOGY[p.info.mode] ?? String(p.info.mode), object: o.type, skinned: o.isSkinnedMesh === true })),
    );
  },
  /** Where vertex `i` of the first skinned primitive is drawn now (world space). */
  vertexPosition(i) {
    const p = primary();
    if (!p) throw new Error('no skinned primitive');
    return vertexWorld(p, i).toArray();
  },
  render,
  pixels,
  play,
  get boneNames() {
    return primary()?.jointNames ?? [];
  },
  get clips() {
    return shown ? shown.built.clips.map((c) => c.name) : [];
  },
};
window.dashInspector = api;

$('files').addEventListener('change', (e) => {
  if (e.target.files.length) open(e.target.files);
});
document.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('dragging');
});
document.addEventListener('dragleave', (e) => {
  if (e.target === document.documentElement || e.relatedTarget === null) document.body.classList.remove('dragging');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  if (e.dataTransfer?.files.length) open(e.dataTransfer.files);
});
document.querySelectorAll('input[name=mode]').forEach((r) =>
  r.addEventListener('change', () => shown && colorBy(r.value, r.value === 'bone' ? pickedBone ?? undefined : undefined)),
);
$('k').addEventListener('input', () => {
  $('k-out').textContent = $('k').value;
  if (shown && mode === 'dropped') colorBy('dropped', Number($('k').value));
});
$('show-skeleton').addEventListener('change', () => {
  if (skeletonHelper) skeletonHelper.visible = $('show-skeleton').checked;
});
for (const id of ['rx', 'ry', 'rz']) $(id).addEventListener('input', pose);
$('pose-reset').addEventListener('click', () => {
  for (const id of ['rx', 'ry', 'rz']) $(id).value = '0';
  pose();
});
$('fit').addEventListener('change', () => {
  if (shown && mode === 'dropped') colorBy('dropped', Number($('k').value));
});
$('download').addEventListener('click', () => {
  const k = Number($('k').value);
  const fit = $('fit').checked;
  const how = fit ? 'dashvertex reduce --fit' : 'dashvertex reduce';
  if (shown) download(() => reduced(k), fit ? `k${k}.fit` : `k${k}`, `reduced to ${k} influences per vertex (as ${how} writes it)`);
});
$('download-fix').addEventListener('click', () => shown && download(fixed, 'fixed', 'repaired as dashvertex fix writes it'));
$('play').addEventListener('click', () => play(!action || action.paused));
$('animations').addEventListener('change', () => play(false));
