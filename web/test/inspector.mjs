// The skin inspector's browser test, run by js/dash-three/test/browser.mjs in the same
// Chromium (see tools/web-test.sh). For every case the files go through the page's file
// input; then
//   - the page's report text is byte-equal to `dash-validate --format json` of the same files;
//   - values(mode) equal the numbers an independent reader (gltf-read.mjs) computes;
//   - each colour mode and selecting a diagnostic change the picture;
//   - points and lines (examples/rig.json converted by `dashvertex convert`, and as
//     LINES, LINE_LOOP, LINE_STRIP with a broken weight sum) are drawn skinned and their
//     diagnostic is selected and marked from the list (testTopology);
//   - meshopt-compressed files show what their uncompressed twins show (meshopt.mjs);
//   - no page errors.
// Screenshots of each colour mode of the showcase case are saved; a generated
// 100,000-vertex GLB is timed from the file input to "ready" and coloured.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { expected, firstSkinned, load } from './gltf-read.mjs';
import { testMeshopt } from './meshopt.mjs';

const MODES = ['influences', 'bone', 'sum', 'dropped', 'diagnostics'];
/** How the page's warning names each display change. */
const WORDS = { unweighted: 'have no influence', normalized: 'do not sum to 1', reduced: 'more than four influences', outOfRange: 'joints their skin does not have' };

async function openPage(browser, base) {
  const page = await browser.newPage();
  const errors = [];
  const warnings = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warn' || m.type() === 'warning') warnings.push(m.text());
  });
  await page.setViewport({ width: 1100, height: 700 });
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForFunction('window.dashInspector', { timeout: 30000 });
  return { page, errors, warnings };
}

/** Uploads `files` through the file input; resolves to the page state ("ready"/"error") and ms taken. */
async function upload(page, files) {
  await page.evaluate(() => {
    document.body.dataset.state = 'loading';
    document.getElementById('files').value = ''; // the same file again still fires "change"
  });
  const input = await page.$('#files');
  const t0 = Date.now();
  await input.uploadFile(...files);
  await page.waitForFunction("['ready', 'error'].includes(document.body.dataset.state)", { timeout: 60000 });
  return { state: await page.evaluate(() => document.body.dataset.state), ms: Date.now() - t0 };
}

// NaN comes back from the page as null (JSON).
const same = (x, y, tol) => ((x === null || Number.isNaN(x)) && Number.isNaN(y)) || Math.abs(x - y) <= tol;
const close = (a, b, tol) => a.length === b.length && a.every((x, i) => same(x, b[i], tol));

function firstDiff(a, b, tol) {
  const i = a.findIndex((x, k) => !same(x, b[k], tol));
  return i < 0 ? (a.length === b.length ? '' : `lengths ${a.length} vs ${b.length}`) : `vertex ${i}: ${a[i]} vs ${b[i]}`;
}

/** One case: `{ label, files, reportText, expectState, showcase }`. */
async function testCase(session, c, shots, check) {
  const { page, errors, warnings } = session;
  // One page for every case (files opened one after another, as a user would): the
  // errors and warnings of this case only.
  errors.length = 0;
  warnings.length = 0;
  const { state } = await upload(page, c.files);
  const status = await page.evaluate(() => document.getElementById('status').textContent);
  check(state === c.expectState, `inspector ${c.label}: state ${c.expectState}`, `${state}: ${status}`);
  const text = await page.evaluate(() => window.dashInspector.reportText);
  if (c.reportDiffers) {
    const report = JSON.parse(text);
    check(report.files[0].valid === false, `inspector ${c.label}: the report says the file is invalid (${c.reportDiffers})`);
  } else check(text === c.reportText, `inspector ${c.label}: report byte-equal to dash-validate --format json`, text === c.reportText ? '' : `${(text ?? '').length} vs ${c.reportText.length} bytes\n${text}\n---\n${c.reportText}`);
  if (state === 'ready') {
    const doc = load(c.files);
    const prim = firstSkinned(doc);
    if (prim) {
      const report = JSON.parse(c.reportText);
      const bone = prim.jointNames.find((n) => expected.bone(prim, n).some((w) => w > 0 && w < 1)) ?? prim.jointNames[0];
      const wants = {
        influences: [expected.influences(prim), 0],
        bone: [expected.bone(prim, bone), 1e-6, bone],
        sum: [expected.sum(prim), 1e-6],
        dropped: [expected.dropped(prim, 2), 1e-6, 2],
        diagnostics: [expected.diagnostics(prim, report), 0],
      };
      for (const [mode, [want, tol, arg]] of Object.entries(wants)) {
        const got = await page.evaluate((m, a) => window.dashInspector.values(m, a), mode, arg);
        check(close(got, want, tol), `inspector ${c.label}: values("${mode}"${arg !== undefined ? `, ${JSON.stringify(arg)}` : ''}) equal an independent decoding`, firstDiff(got, want, tol));
      }
      // Drawn as the file means (item 4 of issue 30, for glTF): each display change is
      // counted and named in one console warning, and an unweighted vertex stays put.
      const display = await page.evaluate(() => window.dashInspector.display);
      const changed = ['unweighted', 'normalized', 'reduced', 'outOfRange'].filter((k) => display[k].vertices > 0);
      const warned = warnings.filter((w) => w.includes('drawn as the file means'));
      if (c.display) {
        check(c.display.every((k) => changed.includes(k)), `inspector ${c.label}: display counts ${c.display.join(', ')}`, JSON.stringify(display));
      }
      check(
        changed.length === 0 ? warned.length === 0 : warned.length === 1 && changed.every((k) => warned[0].includes(WORDS[k])),
        `inspector ${c.label}: ${changed.length ? `one console warning names ${changed.join(', ')}` : 'no display warning'}`,
        warned.join(' | '),
      );
      if (display.unweighted.vertices > 0) {
        const v = display.unweighted.first;
        const at = await page.evaluate((v) => window.dashInspector.vertexPosition(v), v);
        const want = prim.positions[v];
        check(Math.hypot(...at.map((x, i) => x - want[i])) < 1e-5, `inspector ${c.label}: unweighted vertex ${v} drawn at its position`, `${at} vs ${want}`);
      }
      // The picture: every mode draws, and the modes that hold different numbers differ.
      const hashes = {};
      for (const mode of MODES) {
        const px = await page.evaluate((m, a) => {
          window.dashInspector.colorBy(m, a);
          return window.dashInspector.pixels();
        }, mode, wants[mode][2]);
        hashes[mode] = px.hash;
        if (c.showcase) await page.screenshot({ path: join(shots, `inspector-${mode}.png`) });
        // (A broken vector may skin to a degenerate triangle, drawn as the file means.)
        // (Points and lines of a small model cover few pixels.)
        if (!c.vector) check(px.drawn > (c.sparse ? 1e-4 : 0.002) && px.colours > 4, `inspector ${c.label}: colour mode ${mode} draws`, `${(100 * px.drawn).toFixed(2)} % drawn, ${px.colours} colours`);
      }
      if (c.showcase) {
        check(new Set(Object.values(hashes)).size === MODES.length, `inspector ${c.label}: each colour mode changes the picture`, JSON.stringify(hashes));
      }
      const diags = report.files[0].diagnostics;
      const located = diags.findIndex((d) => d.location?.vertex !== undefined);
      if (diags.length > 0) {
        // A diagnostic naming a vertex is framed and marked: the picture changes. Any
        // other is at least marked in the list.
        const i = Math.max(0, located);
        const before = await page.evaluate(() => window.dashInspector.pixels().hash);
        const sel = await page.evaluate((i) => window.dashInspector.select(i), i);
        const after = await page.evaluate(() => window.dashInspector.pixels().hash);
        const marked = await page.evaluate((i) => document.querySelector(`#report li[data-index="${i}"]`)?.classList.contains('selected'), i);
        check(marked && (located < 0 || (after !== before && sel.vertex === diags[i].location.vertex)), `inspector ${c.label}: selecting diagnostic ${i} (${sel.code}) marks it${located >= 0 ? ' and changes the picture' : ''}`, JSON.stringify(sel));
        if (c.showcase) await page.screenshot({ path: join(shots, 'inspector-selected.png') });
      }
      if (c.topology) await testTopology(session, c, report, shots, check);
      if (c.reduce) {
        // The download: the bytes `dashvertex reduce IN -o OUT.glb --max-influences K` wrote.
        const got = await page.evaluate((k) => window.dashInspector.reducedDigest(k).catch((e) => ({ refused: String(e.message ?? e) })), c.reduce.k);
        if (c.reduce.refused) check(Boolean(got.refused), `inspector ${c.label}: reduce to ${c.reduce.k} refused, as the command refuses`, JSON.stringify(got));
        else check(got.sha256 === c.reduce.sha256 && got.length === c.reduce.length, `inspector ${c.label}: reduced to ${c.reduce.k} in the page, the same bytes as dashvertex reduce`, `${JSON.stringify(got)} vs ${c.reduce.length} bytes ${c.reduce.sha256}`);
      }
      if (c.fitReduce) {
        // The fit box: the download is `dashvertex reduce --fit`'s bytes, and the dropped
        // colours count, per vertex, the input weight of the bones that output no longer
        // carries (computed here from the command's output, decoded by gltf-read.mjs).
        const { k, length, sha256, dropped } = c.fitReduce;
        const got = await page.evaluate(async (k) => {
          const ins = window.dashInspector;
          ins.setFit(true);
          try {
            return { digest: await ins.reducedDigest(k), values: ins.values('dropped', k) };
          } finally {
            ins.setFit(false);
          }
        }, k);
        check(got.digest.sha256 === sha256 && got.digest.length === length, `inspector ${c.label}: fitted to ${k} in the page, the same bytes as dashvertex reduce --fit`, `${JSON.stringify(got.digest)} vs ${length} bytes ${sha256}`);
        check(close(got.values, dropped, 1e-6), `inspector ${c.label}: values("dropped", ${k}) with the fit equal what dashvertex reduce --fit drops`, firstDiff(got.values, dropped, 1e-6));
        const plain = expected.dropped(firstSkinned(load(c.files)), k);
        check(got.values.some((x, v) => Math.abs(x - plain[v]) > 1e-6), `inspector ${c.label}: the fit keeps other bones than the K heaviest somewhere`);
      }
      if (c.fix) {
        const got = await page.evaluate(() => window.dashInspector.fixedDigest().catch((e) => ({ refused: String(e.message ?? e) })));
        if (c.fix.refused) check(Boolean(got.refused), `inspector ${c.label}: fix refused, as the command refuses`, JSON.stringify(got));
        else check(got.sha256 === c.fix.sha256 && got.length === c.fix.length, `inspector ${c.label}: fixed in the page, the same bytes as dashvertex fix`, `${JSON.stringify(got)} vs ${c.fix.length} bytes ${c.fix.sha256}`);
      }
      if (c.showcase) {
        // Posing: pick the second joint in the tree, turn it about z by the slider.
        const posed = await page.evaluate(async () => {
          const ins = window.dashInspector;
          const before = ins.pixels().hash;
          const spans = document.querySelectorAll('#tree span.joint');
          spans[Math.min(1, spans.length - 1)].click();
          const rz = document.getElementById('rz');
          rz.value = '60';
          rz.dispatchEvent(new Event('input'));
          const after = ins.pixels().hash;
          return { before, after, bone: document.getElementById('pose-bone').textContent };
        });
        check(posed.before !== posed.after, `inspector ${c.label}: posing bone ${posed.bone} changes the picture`);
        // Animation: the mixer moves the model.
        const before = await page.evaluate(() => window.dashInspector.pixels().hash);
        const played = await page.evaluate(() => window.dashInspector.play(true));
        await new Promise((r) => setTimeout(r, 400));
        const after = await page.evaluate(() => window.dashInspector.pixels().hash);
        await page.evaluate(() => window.dashInspector.play(false));
        check(played && after !== before, `inspector ${c.label}: an animation plays and moves the model`);
      }
    }
  }
  check(errors.length === 0, `inspector ${c.label}: no page errors`, errors.join(' | '));
}

/**
 * A copy of a GLB whose first primitive's FLOAT WEIGHTS_0 are scaled by 0.6 on every 40th
 * vertex from `first` (sums of 0.6: WEIGHT_SUM diagnostics to show and select).
 */
function breakWeights(glb, first = 0) {
  const out = Buffer.from(glb);
  const jsonLength = out.readUInt32LE(12);
  const json = JSON.parse(out.subarray(20, 20 + jsonLength).toString('utf8'));
  const binStart = 20 + jsonLength + 8;
  const prim = json.meshes[0].primitives[0];
  const a = json.accessors[prim.attributes.WEIGHTS_0];
  const view = json.bufferViews[a.bufferView];
  const stride = view.byteStride ?? 16;
  const start = binStart + (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
  if (a.componentType !== 5126) throw new Error('breakWeights: FLOAT weights expected');
  for (let v = first; v < a.count; v += 40) {
    for (let k = 0; k < 4; k++) {
      const o = start + v * stride + 4 * k;
      out.writeFloatLE(out.readFloatLE(o) * 0.6, o);
    }
  }
  return out;
}

/** A copy of a GLB whose every primitive has topology `mode` (the JSON chunk rewritten). */
function withMode(glb, mode) {
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
  for (const m of json.meshes) for (const p of m.primitives) p.mode = mode;
  const text = Buffer.from(JSON.stringify(json));
  const padded = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const rest = glb.subarray(20 + jsonLength);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + padded.length + rest.length, 8);
  head.writeUInt32LE(padded.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([head, padded, rest]);
}

/** glTF topologies the inspector draws besides triangles (issue 48, item 8). */
const POINTS_AND_LINES = { POINTS: 0, LINES: 1, LINE_LOOP: 2, LINE_STRIP: 3 };

/**
 * examples/rig.json as `dashvertex convert` writes it to GLB (one POINTS primitive, a skin
 * of root, spine and head), with vertex 5's weights scaled to a sum of 0.6 (a WEIGHT_SUM
 * diagnostic to select: the command refuses to write such a file, so the weights are
 * broken after it), and the same file as LINES, LINE_LOOP and LINE_STRIP. The unbroken
 * conversion is a case too.
 */
function convertedRig(repo, dashvertex, out) {
  const glb = join(out, 'rig.converted.glb');
  const r = spawnSync(dashvertex, ['convert', join(repo, 'examples/rig.json'), glb], { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`dashvertex convert examples/rig.json: ${r.stderr}`);
  const broken = breakWeights(readFileSync(glb), 5);
  const files = [['rig.converted.glb (POINTS, from dashvertex convert examples/rig.json)', glb, false]];
  for (const [name, mode] of Object.entries(POINTS_AND_LINES)) {
    const path = join(out, `rig-${name.toLowerCase().replace('_', '-')}-broken.glb`);
    writeFileSync(path, withMode(broken, mode));
    files.push([`${basename(path)} (${name}, vertex 5 weighted 0.6)`, path, name]);
  }
  return files.map(([label, path, topology]) => [label, [path], 'ready', false, false, { sparse: true, topology }]);
}

/**
 * The canvas now, as `{ white, near(x, y) }`: how many pixels are white (the selection
 * marker is white; nothing else drawn is) and how many pixels within 3 of (x, y) are not
 * the background.
 */
function canvasNow(page, points = []) {
  return page.evaluate((points) => {
    window.dashInspector.render();
    const src = document.getElementById('view');
    const c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext('2d');
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let white = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255) white++;
    const near = points.map(([x, y]) => {
      let n = 0;
      for (let dy = -3; dy <= 3; dy++) {
        for (let dx = -3; dx <= 3; dx++) {
          const px = Math.round(x) + dx;
          const py = Math.round(y) + dy;
          if (px < 0 || py < 0 || px >= c.width || py >= c.height) continue;
          const o = 4 * (py * c.width + px);
          if (Math.abs(d[o] - 0x1b) + Math.abs(d[o + 1] - 0x1d) + Math.abs(d[o + 2] - 0x23) > 24) n++;
        }
      }
      return n;
    });
    return { white, near, size: [c.width, c.height] };
  }, points);
}

/** `p` turned by `deg` degrees about z around the pivot (0, 1, 0) (the spine's rest position). */
function aboutSpine(p, deg) {
  const a = (deg * Math.PI) / 180;
  const [x, y] = [p[0], p[1] - 1];
  return [x * Math.cos(a) - y * Math.sin(a), 1 + x * Math.sin(a) + y * Math.cos(a), p[2]];
}

const dist3 = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * A points or lines case (issue 48, item 8), opened afresh: drawn as a skinned three.js
 * object of its topology; posing the spine moves vertex 4 where the CPU
 * skinning puts it (vertexPosition) and the GPU draws it there, not at its rest position;
 * clicking the WEIGHT_SUM diagnostic on vertex 5 in the list marks the vertex where it is
 * and draws the white marker.
 */
async function testTopology(session, c, report, shots, check) {
  const { page } = session;
  const { state } = await upload(page, c.files);
  if (state !== 'ready') return;
  const kind = { POINTS: 'Points', LINES: 'LineSegments', LINE_LOOP: 'LineLoop', LINE_STRIP: 'Line' }[c.topology];
  const drawn = await page.evaluate(() => window.dashInspector.drawn);
  check(drawn.length === 1 && drawn[0].topology === c.topology && drawn[0].object === kind && drawn[0].skinned, `inspector ${c.label}: drawn as a skinned three.js ${kind}`, JSON.stringify(drawn));

  // Posing, with the bones hidden and nothing selected: the drawing follows the skin.
  // Vertex 4 (-0.5, 2, 0): head and spine half each, so it turns with the spine.
  const DEG = -30;
  const rest4 = [-0.5, 2, 0];
  const pose = (deg) =>
    page.evaluate((deg) => {
      const bones = document.getElementById('show-skeleton');
      bones.checked = false;
      bones.dispatchEvent(new Event('change'));
      const spine = [...document.querySelectorAll('#tree span')].find((s) => s.textContent === 'spine');
      if (!spine.classList.contains('picked')) spine.click();
      const rz = document.getElementById('rz');
      rz.value = String(deg);
      rz.dispatchEvent(new Event('input'));
      return { at: window.dashInspector.vertexPosition(4), screen: window.dashInspector.screenPosition(4) };
    }, deg);
  const atRest = await pose(0);
  const posed = await pose(DEG);
  const px = await canvasNow(page, [atRest.screen, posed.screen]);
  const want = aboutSpine(rest4, DEG);
  check(dist3(atRest.at, rest4) < 1e-5 && dist3(posed.at, want) < 1e-5, `inspector ${c.label}: posing the spine ${DEG}° moves vertex 4 as its skin says`, `${atRest.at} -> ${posed.at} vs ${want}`);
  check(px.near[1] > 0 && px.near[0] === 0, `inspector ${c.label}: posed, vertex 4 is drawn where it went, not where it was`, `non-background pixels near ${posed.screen.map(Math.round)}: ${px.near[1]}, near ${atRest.screen.map(Math.round)}: ${px.near[0]} (canvas ${px.size})`);
  await pose(0);

  // Selecting the diagnostic by clicking it in the list, as a user does.
  const i = report.files[0].diagnostics.findIndex((d) => d.code === 'WEIGHT_SUM' && d.location?.vertex === 5);
  check(i >= 0, `inspector ${c.label}: the report has WEIGHT_SUM on vertex 5`);
  if (i < 0) return;
  const before = await canvasNow(page);
  await page.click(`#report li[data-index="${i}"]`);
  const shown = await page.evaluate((i) => ({ marked: document.querySelector(`#report li[data-index="${i}"]`)?.classList.contains('selected'), at: window.dashInspector.vertexPosition(5), screen: window.dashInspector.screenPosition(5) }), i);
  const after = await canvasNow(page, [shown.screen]);
  check(shown.marked && dist3(shown.at, [0.5, 2, 0]) < 1e-5, `inspector ${c.label}: clicking diagnostic ${i} (WEIGHT_SUM, vertex 5) marks it in the list, at the vertex`, JSON.stringify(shown));
  check(after.white - before.white >= 100 && after.near[0] > 0, `inspector ${c.label}: the selected vertex's marker is drawn`, `${before.white} white pixels before, ${after.white} after`);
  await page.screenshot({ path: join(shots, `inspector-${c.topology.toLowerCase().replace('_', '-')}-selected.png`) });
}

/** A GLB of `n` vertices on a grid bent by two joints; a few vertices' weights sum to 0.9. */
export function bigGlb(n) {
  const cols = 400;
  const rows = Math.ceil(n / cols);
  const count = cols * rows;
  const pos = new Float32Array(count * 3);
  const joints = new Uint16Array(count * 4);
  const weights = new Float32Array(count * 4);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = r * cols + c;
      pos.set([c / cols - 0.5, r / rows, 0], 3 * v);
      const t = r / rows;
      joints.set([0, 1, 0, 0], 4 * v);
      weights.set([1 - t, t, 0, 0], 4 * v);
      if (v % 997 === 0) weights.set([0.45, 0.45, 0, 0], 4 * v);
    }
  }
  const tris = [];
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      const a = r * cols + c;
      tris.push(a, a + 1, a + cols, a + 1, a + cols + 1, a + cols);
    }
  }
  const index = Uint32Array.from(tris);
  const ibm = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.5, 0, 1]);
  const parts = [pos, joints, weights, index, ibm].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  let offset = 0;
  const views = parts.map((p, i) => {
    const v = { buffer: 0, byteOffset: offset, byteLength: p.length, ...(i < 3 ? { target: 34962 } : i === 3 ? { target: 34963 } : {}) };
    offset += p.length;
    return v;
  });
  const json = {
    asset: { version: '2.0', generator: 'dash web test' },
    scene: 0,
    scenes: [{ nodes: [0, 1] }],
    nodes: [{ name: 'mesh', mesh: 0, skin: 0 }, { name: 'root', children: [2] }, { name: 'top', translation: [0, 0.5, 0] }],
    skins: [{ joints: [1, 2], inverseBindMatrices: 4 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, JOINTS_0: 1, WEIGHTS_0: 2 }, indices: 3 }] }],
    buffers: [{ byteLength: offset }],
    bufferViews: views,
    accessors: [
      { bufferView: 0, componentType: 5126, count, type: 'VEC3', min: [-0.5, 0, 0], max: [(cols - 1) / cols - 0.5, (rows - 1) / rows, 0] },
      { bufferView: 1, componentType: 5123, count, type: 'VEC4' },
      { bufferView: 2, componentType: 5126, count, type: 'VEC4' },
      { bufferView: 3, componentType: 5125, count: index.length, type: 'SCALAR' },
      { bufferView: 4, componentType: 5126, count: 2, type: 'MAT4' },
    ],
  };
  const pad = (b, fill) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
  const text = pad(Buffer.from(JSON.stringify(json)), 0x20);
  const bin = pad(Buffer.concat(parts), 0);
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + text.length + 8 + bin.length, 8);
  const chunk = (len, type) => {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(len, 0);
    b.writeUInt32LE(type, 4);
    return b;
  };
  return { bytes: Buffer.concat([header, chunk(text.length, 0x4e4f534a), text, chunk(bin.length, 0x004e4942), bin]), count };
}

/** The 100k-vertex GLB through the file input: time to "ready" (validated, decoded, drawn, coloured), then recoloured. */
async function timeBig(browser, base, path, count, check) {
  const { page, errors } = await openPage(browser, base);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const { state, ms } = await upload(page, [path]);
    const t = await page.evaluate(() => window.dashInspector.timings);
    runs.push({ state, ms, ...t, changeToReady: t.read + t.total });
  }
  const colour = await page.evaluate(() => {
    const out = {};
    for (const [m, a] of [['influences'], ['sum'], ['dropped', 4], ['diagnostics']]) {
      const t0 = performance.now();
      window.dashInspector.colorBy(m, a);
      out[m] = performance.now() - t0;
    }
    return out;
  });
  const median = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[1];
  console.log(
    `     100k GLB (${count} vertices): file input to ready ${median("ms")} ms (in page: read ${median("read").toFixed(0)} ms, validate+decode ${median('validateDecode').toFixed(0)} ms, ` +
      `build ${median('build').toFixed(0)} ms, colour+tree+frame ${median('colourTree').toFixed(0)} ms; change event to ready ${median('changeToReady').toFixed(0)} ms); ` +
      `recolour ${Object.entries(colour).map(([m, t]) => `${m} ${t.toFixed(0)} ms`).join(', ')} (median of 3)`,
  );
  console.log(`INSPECTOR_100K_READY_MS=${median('ms')} INSPECTOR_100K_PAGE_MS=${median('changeToReady').toFixed(0)}`);
  check(runs.every((r) => r.state === 'ready'), 'inspector 100k GLB: shown', JSON.stringify(runs.map((r) => r.state)));
  check(errors.length === 0, 'inspector 100k GLB: no page errors', errors.join(' | '));
  await page.close();
}

/**
 * Per vertex of `input` (a decoded primitive), the weight of its influences (repeated
 * joints merged, positive finite weights) whose joint `output`, the same primitive
 * reduced, no longer carries with a positive weight.
 */
function droppedAgainst(input, output) {
  const out = [];
  for (let v = 0; v < input.count; v++) {
    const kept = new Set();
    for (const s of output.sets) for (let i = 0; i < 4; i++) if (s.weights[v][i] > 0) kept.add(s.joints[v][i]);
    let lost = 0;
    for (const s of input.sets) {
      for (let i = 0; i < 4; i++) {
        const w = s.weights[v][i];
        if (w > 0 && Number.isFinite(w) && !kept.has(s.joints[v][i])) lost += w;
      }
    }
    out.push(lost);
  }
  return out;
}

/** Drag and drop: a .gltf and its .bin dropped together, as File objects in a drop event. */
async function testDrop(session, repo, check) {
  const { page, errors } = session;
  errors.length = 0;
  const dir = join(repo, 'fixtures/corpus/gltf/blenderio/03_skinned_cylinder');
  const files = ['03_skinned_cylinder.bin', '03_skinned_cylinder.gltf'].map((n) => [n, readFileSync(join(dir, n)).toString('base64')]);
  const state = await page.evaluate(async (files) => {
    document.body.dataset.state = 'loading';
    const dt = new DataTransfer();
    for (const [name, b64] of files) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    const t0 = performance.now();
    while (!['ready', 'error'].includes(document.body.dataset.state) && performance.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 20));
    return { state: document.body.dataset.state, file: window.dashInspector.report?.files?.[0]?.file };
  }, files);
  check(state.state === 'ready' && state.file === '03_skinned_cylinder.gltf', 'inspector: a .bin and its .gltf dropped together are shown', JSON.stringify(state));
  check(errors.length === 0, 'inspector drop: no page errors', errors.join(' | '));
}

/** Runs every case, then the timing. */
export async function testInspector(browser, base, { cases, shots, repo }, check) {
  const session = await openPage(browser, base);
  for (const c of cases) {
    // A case that throws (a page call failing) fails alone; the next cases still run.
    await testCase(session, c, shots, check).catch((e) => check(false, `inspector ${c.label}: runs`, e.message ?? String(e)));
  }
  await testDrop(session, repo, check);
  // Meshopt-compressed files show what their uncompressed twins show (meshopt.mjs).
  await testMeshopt(session, repo, upload, check).catch((e) => check(false, 'inspector meshopt: runs', e.message ?? String(e)));
  await session.page.close();
  const big = bigGlb(100_000);
  const path = join(shots, 'inspector-100k.glb');
  writeFileSync(path, big.bytes);
  await timeBig(browser, base, path, big.count, check);
}

/**
 * The cases: corpus models and broken vectors (paths from the repository), each with the
 * report `dash-validate --format json NAME` prints when run in the file's folder.
 */
export function makeCases(repo, validateBin, out) {
  const c = 'fixtures/corpus/gltf';
  const v = 'spec/vectors/gltf';
  const broken = join(out, 'CesiumMan-broken.glb');
  writeFileSync(broken, breakWeights(readFileSync(join(repo, c, 'khronos_samples/CesiumMan.glb'))));
  const alone = join(out, 'alone', '03_skinned_cylinder.gltf');
  mkdirSync(dirname(alone), { recursive: true });
  copyFileSync(join(repo, c, 'blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf'), alone);
  const list = [
    ['CesiumMan-broken.glb (every 40th vertex weighted 0.6)', [broken], 'ready', true],
    ['CesiumMan.glb', [`${c}/khronos_samples/CesiumMan.glb`], 'ready'],
    ['Fox.glb', [`${c}/khronos_samples/Fox.glb`], 'ready'],
    ['RiggedFigure.glb', [`${c}/khronos_samples/RiggedFigure.glb`], 'ready'],
    ['RiggedSimple.glb', [`${c}/khronos_samples/RiggedSimple.glb`], 'ready'],
    ['SimpleSkin.gltf', [`${c}/bevy/SimpleSkin.gltf`], 'ready'],
    ['03_skinned_cylinder (.gltf + .bin)', [`${c}/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf`, `${c}/blenderio/03_skinned_cylinder/03_skinned_cylinder.bin`], 'ready'],
    ['Animation_Skin_01 (.gltf + .bin)', [`${c}/assetgen/Animation_Skin/Animation_Skin_01.gltf`, `${c}/assetgen/Animation_Skin/Animation_Skin_01.bin`], 'ready'],
    ...['weights-non-normalized', 'weights-negative', 'weights-nan', 'weights-all-zero', 'joints-out-of-range', 'joints-duplicate', 'weights-unorm8-sum', 'multiset-duplicate-across-sets', 'node-cycle', 'set-mismatch'].map((n) => [
      `${n}.gltf`,
      [`${v}/${n}.gltf`],
      'ready',
      false,
      true,
    ]),
    ['multiset-valid.glb', [`${v}/multiset-valid.glb`], 'ready', false, true],
    ['json-syntax.gltf', [`${v}/json-syntax.gltf`], 'error', false, true],
    ['03_skinned_cylinder.gltf without its .bin', [alone], 'error', false, true],
    ['glb-truncated.glb', [`${v}/glb-truncated.glb`], 'error', false, true],
    ...convertedRig(repo, join(dirname(validateBin), 'dashvertex'), out),
  ];
  const reduceK = { 'CesiumMan-broken.glb (every 40th vertex weighted 0.6)': 2, 'CesiumMan.glb': 2, 'Fox.glb': 1, '03_skinned_cylinder (.gltf + .bin)': 1, 'multiset-valid.glb': 4, 'weights-all-zero.gltf': 2 };
  const dashvertex = join(dirname(validateBin), 'dashvertex');
  // Files `dashvertex fix` repairs (or refuses): the page must give the same bytes (or refuse).
  const fixCases = new Set(['CesiumMan-broken.glb (every 40th vertex weighted 0.6)', 'weights-non-normalized.gltf', 'weights-negative.gltf', 'joints-duplicate.gltf', 'weights-nan.gltf', 'joints-out-of-range.gltf', 'weights-unorm8-sum.gltf', 'weights-all-zero.gltf']);
  const display = {
    ...Object.fromEntries(Object.keys(POINTS_AND_LINES).map((t) => [`rig-${t.toLowerCase().replace('_', '-')}-broken.glb (${t}, vertex 5 weighted 0.6)`, ['normalized']])),
    'weights-all-zero.gltf': ['unweighted'], 'weights-non-normalized.gltf': ['normalized'], 'joints-out-of-range.gltf': ['outOfRange'] };
  return list.map(([label, files, expectState, showcase, vector, extra = {}]) => {
    const abs = files.map((f) => (isAbsolute(f) ? f : join(repo, f)));
    const run = spawnSync(validateBin, ['--format', 'json', basename(abs[0])], { cwd: dirname(abs[0]), encoding: 'utf8' });
    if (run.error) throw run.error;
    let reduce;
    const k = reduceK[label];
    if (k) {
      const o = join(out, `reduced-${basename(abs[0])}.k${k}.glb`);
      const r = spawnSync(dashvertex, ['reduce', abs[0], '-o', o, '--max-influences', String(k), '-q'], { encoding: 'utf8' });
      if (r.error) throw r.error;
      if (r.status === 0) {
        const bytes = readFileSync(o);
        reduce = { k, length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      } else {
        reduce = { k, refused: r.stderr };
      }
    }
    let fitReduce;
    if (label === 'CesiumMan.glb') {
      const fk = 2;
      const o = join(out, `fitted-${basename(abs[0])}.k${fk}.glb`);
      const r = spawnSync(dashvertex, ['reduce', abs[0], '-o', o, '--max-influences', String(fk), '--fit', '-q'], { encoding: 'utf8' });
      if (r.error) throw r.error;
      if (r.status !== 0) throw new Error(`dashvertex reduce --fit ${abs[0]}: ${r.stderr}`);
      const bytes = readFileSync(o);
      fitReduce = { k: fk, length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), dropped: droppedAgainst(firstSkinned(load(abs)), firstSkinned(load([o]))) };
    }
    // Without its .bin, the command names the missing file by its path on disk; the page
    // has no folder and says so: the two messages differ by nature.
    const reportDiffers = abs[0] === alone ? 'the missing buffer is named differently without a folder' : undefined;
    let fix;
    if (fixCases.has(label)) {
      const o = join(out, `fixed-${basename(abs[0])}.glb`);
      const r = spawnSync(dashvertex, ['fix', abs[0], '-o', o, '-q'], { encoding: 'utf8' });
      if (r.error) throw r.error;
      if (r.status === 0) {
        const bytes = readFileSync(o);
        fix = { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      } else {
        fix = { refused: r.stderr };
      }
    }
    return { label, files: abs, reportText: run.stdout, reportDiffers, fix, expectState, showcase: Boolean(showcase), vector: Boolean(vector), display: display[label], reduce, fitReduce, ...extra };
  });
}
