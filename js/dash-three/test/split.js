// The three.js check of `dashvertex split` (issue 29), driven by browser.mjs: loads a glTF
// file and its split with three's own GLTFLoader, and for each asked animation time
//   - skins every triangle of every SkinnedMesh on the CPU (`getVertexPosition`, which applies
//     the bones as the shader does) and returns them as a sorted multiset of coordinates, so
//     the test can require the split to draw exactly the input's triangles;
//   - renders both scenes from one camera (framed on the input at rest) into render targets,
//     returns how many pixels differ, and draws them side by side on the canvas for the
//     screenshot.
// Nothing here knows about dash: only three.js reads the files.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const W = 320;
const H = 400;
const canvas = document.getElementById('view');
const info = document.getElementById('info');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(2 * W, H, false);

function bytes(base64) {
  const s = atob(base64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out.buffer;
}

/** One loaded file: its scene with lights, its SkinnedMeshes and a mixer on its first clip. */
async function load(base64) {
  const gltf = await new GLTFLoader().parseAsync(bytes(base64), '');
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1b1d23);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 2));
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.position.set(1, 2, 3);
  scene.add(sun);
  scene.add(gltf.scene);
  const skinned = [];
  gltf.scene.traverse((o) => {
    if (o.isSkinnedMesh) skinned.push(o);
  });
  const clip = gltf.animations[0];
  const mixer = clip ? new THREE.AnimationMixer(gltf.scene) : null;
  if (mixer) mixer.clipAction(clip).play();
  return { scene, skinned, mixer, duration: clip ? clip.duration : 0 };
}

function pose(file, t) {
  if (file.mixer) file.mixer.setTime(t);
  file.scene.updateMatrixWorld(true);
  for (const m of file.skinned) m.skeleton.update();
}

/**
 * The skinned triangles of every SkinnedMesh, in world space, each as its three corners'
 * coordinates rounded to `grid`, rotated to start at the least corner and sorted, so that
 * neither the order of triangles and parts nor where a triangle's corner list starts
 * matters (its winding, part of the picture, does).
 */
function triangles(file, grid) {
  const out = [];
  const v = new THREE.Vector3();
  for (const m of file.skinned) {
    const g = m.geometry;
    const count = g.index ? g.index.count : g.getAttribute('position').count;
    const at = (i) => (g.index ? g.index.getX(i) : i);
    const corner = [];
    for (let i = 0; i < count; i++) {
      m.getVertexPosition(at(i), v);
      v.applyMatrix4(m.matrixWorld);
      corner.push(`${Math.round(v.x / grid)},${Math.round(v.y / grid)},${Math.round(v.z / grid)}`);
      if (corner.length === 3) {
        // Rotated to start at its least corner: the same triangle, the same winding.
        const k = corner.indexOf([...corner].sort()[0]);
        out.push([0, 1, 2].map((i) => corner[(k + i) % 3]).join(';'));
        corner.length = 0;
      }
    }
  }
  out.sort();
  return out;
}

function render(file, camera, target) {
  renderer.setRenderTarget(target);
  renderer.render(file.scene, camera);
  const px = new Uint8Array(W * H * 4);
  renderer.readRenderTargetPixels(target, 0, 0, W, H, px);
  renderer.setRenderTarget(null);
  return px;
}

/** Compares `input` and `split` (base64 GLB) at `times` (seconds; clamped to the clip). */
async function compare(input, split, times) {
  const a = await load(input);
  const b = await load(split);
  pose(a, 0);
  const box = new THREE.Box3().setFromObject(a.scene, true);
  const size = box.getSize(new THREE.Vector3());
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(size.length() / 2, 1e-6);
  const camera = new THREE.PerspectiveCamera(35, W / H, radius / 100, radius * 100);
  camera.position.copy(centre).add(new THREE.Vector3(0.4, 0.2, 1).normalize().multiplyScalar(radius * 3.2));
  camera.lookAt(centre);
  // A grid far below float32 resolution at the model's scale, far above f64 noise.
  const grid = radius * 1e-6;
  const ta = new THREE.WebGLRenderTarget(W, H);
  const tb = new THREE.WebGLRenderTarget(W, H);
  const frames = [];
  for (const t0 of times) {
    const t = Math.min(t0, a.duration);
    pose(a, t);
    pose(b, t);
    const triA = triangles(a, grid);
    const triB = triangles(b, grid);
    let differentTriangles = Math.abs(triA.length - triB.length);
    for (let i = 0; i < Math.min(triA.length, triB.length); i++) if (triA[i] !== triB[i]) differentTriangles++;
    const pa = render(a, camera, ta);
    const pb = render(b, camera, tb);
    let differentPixels = 0;
    let drawn = 0;
    // The background as the render target holds it (a corner the model does not reach).
    const bg = [pa[0], pa[1], pa[2]];
    for (let i = 0; i < pa.length; i += 4) {
      let d = 0;
      for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(pa[i + c] - pb[i + c]));
      if (d > 2) differentPixels++;
      if (Math.abs(pa[i] - bg[0]) + Math.abs(pa[i + 1] - bg[1]) + Math.abs(pa[i + 2] - bg[2]) > 12) drawn++;
    }
    frames.push({ t, trianglesA: triA.length, trianglesB: triB.length, differentTriangles, differentPixels, drawn, pixels: W * H });
  }
  // The last frame side by side for the screenshot: input left, split right.
  renderer.setScissorTest(true);
  for (const [file, x] of [[a, 0], [b, W]]) {
    renderer.setViewport(x, 0, W, H);
    renderer.setScissor(x, 0, W, H);
    renderer.render(file.scene, camera);
  }
  renderer.setScissorTest(false);
  const joints = (f) => f.skinned.map((m) => m.skeleton.bones.length);
  info.textContent = `input: ${a.skinned.length} skinned meshes · split: ${b.skinned.length}`;
  return {
    skinnedA: a.skinned.length,
    skinnedB: b.skinned.length,
    jointsA: joints(a),
    jointsB: joints(b),
    usedB: b.skinned.map(usedJoints),
    frames,
  };
}

/** The distinct joints a SkinnedMesh's weights use (slots of weight zero do not count). */
function usedJoints(m) {
  const j = m.geometry.getAttribute('skinIndex');
  const w = m.geometry.getAttribute('skinWeight');
  const used = new Set();
  for (let v = 0; v < j.count; v++) for (let k = 0; k < 4; k++) if (w.getComponent(v, k) > 0) used.add(j.getComponent(v, k));
  return used.size;
}

window.splitCheck = { compare, ready: true };
info.textContent = 'ready';
