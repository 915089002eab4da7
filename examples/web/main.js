// The example page: loads the example rig with DashLoader, shows it skinned and bends one
// bone. Query parameters: `file` (default rig.dmx, relative to examples/), `bone` (the
// bone to animate, default "head"), `animate=0` to hold still (the test poses the bone
// itself through `window.dashPage`).

import * as THREE from 'three';
import { DashLoader, dashWasm } from 'dash-three';

const params = new URLSearchParams(location.search);
const file = params.get('file') ?? 'rig.dmx';
const boneName = params.get('bone') ?? 'head';
const animate = params.get('animate') !== '0';

const canvas = document.getElementById('view');
const info = document.getElementById('info');
// preserveDrawingBuffer: the test reads the pixels back after a frame.
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1b1d23);
const camera = new THREE.PerspectiveCamera(40, 1, 0.1, 100);
camera.position.set(0, 1.6, 7.5);
camera.lookAt(0, 1.5, 0);

function resize() {
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}

/**
 * Triangles joining consecutive vertex pairs into a ribbon: the example rig stores no
 * faces (dash models vertices, influences and bones, not `face` records), so the page
 * connects its rows of two vertices.
 */
function ribbon(count) {
  const index = [];
  for (let a = 0; a + 3 < count; a += 2) index.push(a, a + 1, a + 2, a + 1, a + 3, a + 2);
  return index;
}

/** A colour per vertex from its weights: each bone has a hue, mixed by weight. */
function weightColours(geometry, bones) {
  const idx = geometry.getAttribute('skinIndex');
  const w = geometry.getAttribute('skinWeight');
  const hue = (b) => new THREE.Color().setHSL((b * 0.37) % 1, 0.65, 0.55);
  const colours = new Float32Array(idx.count * 3);
  for (let v = 0; v < idx.count; v++) {
    const c = new THREE.Color(0, 0, 0);
    for (let k = 0; k < 4; k++) c.add(hue(idx.getComponent(v, k)).multiplyScalar(w.getComponent(v, k)));
    c.toArray(colours, 3 * v);
  }
  geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
  return bones;
}

const loader = new DashLoader().setPath('../');
const page = {};
window.dashPage = page;

page.ready = (async () => {
  const model = await loader.loadAsync(file);
  const { geometry } = model;
  if (!geometry.index) geometry.setIndex(ribbon(geometry.getAttribute('position').count));
  weightColours(geometry, model.bones);
  const mesh = model.createMesh(
    new THREE.MeshBasicMaterial({ vertexColors: true, side: THREE.DoubleSide }),
  );
  scene.add(mesh);
  const wire = new THREE.SkeletonHelper(mesh);
  wire.material.linewidth = 2;
  scene.add(wire);
  const points = new THREE.Points(
    geometry,
    new THREE.PointsMaterial({ color: 0xffffff, size: 6, sizeAttenuation: false }),
  );
  // The points show the rest pose (PointsMaterial does not skin).
  scene.add(points);
  const bone = model.bones.find((b) => b.name === boneName) ?? model.bones.at(-1);
  const rest = bone.quaternion.clone();
  const z = new THREE.Vector3(0, 0, 1);

  page.mesh = mesh;
  page.report = loader.lastReport;
  page.vertexCount = geometry.getAttribute('position').count;
  page.boneCount = model.bones.length;
  page.boneNames = model.bones.map((b) => b.name);
  page.animatedBone = bone.name;
  page.skinIndex = (n) => Array.from(geometry.getAttribute('skinIndex').array.slice(0, 4 * n));
  page.skinWeight = (n) => Array.from(geometry.getAttribute('skinWeight').array.slice(0, 4 * n));
  /** Turns the animated bone by `angle` radians about z from its bind pose. */
  page.pose = (angle) => {
    bone.quaternion.copy(rest).multiply(new THREE.Quaternion().setFromAxisAngle(z, angle));
    scene.updateMatrixWorld(true);
    mesh.skeleton.update();
  };
  /** Vertex `i` as the skinned mesh places it (bone transforms applied), in world space. */
  page.vertexPosition = (i) => {
    const p = mesh.getVertexPosition(i, new THREE.Vector3());
    return p.applyMatrix4(mesh.matrixWorld).toArray();
  };
  page.render = () => {
    resize();
    renderer.render(scene, camera);
  };
  /** How many distinct colours the last frame has, and the share of non-background pixels. */
  page.pixels = () => {
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const colours = new Set();
    let drawn = 0;
    const bg = [px[0], px[1], px[2]];
    for (let i = 0; i < px.length; i += 4) {
      colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      if (px[i] !== bg[0] || px[i + 1] !== bg[1] || px[i + 2] !== bg[2]) drawn++;
    }
    return { width: w, height: h, colours: colours.size, drawn: drawn / (w * h) };
  };

  const r = page.report;
  info.textContent =
    `${file}: ${r.format}, ${r.vertices} vertices, ${r.bones} bones, ` +
    `${r.influenceSets * 4} influence slots${r.reduced ? ' (reduced to 4)' : ''}\n` +
    `animating bone "${bone.name}"`;

  page.pose(0.6);
  page.render();
  if (animate) {
    renderer.setAnimationLoop((t) => {
      page.pose(0.6 * Math.sin(t / 600));
      page.render();
    });
  }
  return true;
})();

/**
 * Decode benchmark: fetches `url` once, then decodes it `runs` times in this page with
 * the module DashLoader uses and copies positions, skinIndex and skinWeight out as typed
 * arrays. Returns the times in milliseconds (decode alone, and decode with the arrays).
 */
window.dashBench = async (url, runs = 5) => {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const wasm = await dashWasm('core');
  const decode = [];
  const arrays = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const m = wasm.decode(bytes, url);
    const t1 = performance.now();
    const p = m.positions();
    const j = m.skinIndex(0);
    const w = m.skinWeight(0);
    const t2 = performance.now();
    if (p.length !== 3 * m.vertexCount || j.length !== w.length) throw new Error('bad arrays');
    m.free();
    decode.push(t1 - t0);
    arrays.push(t2 - t0);
  }
  return { bytes: bytes.length, decode, arrays };
};
