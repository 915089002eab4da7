// The browser test of dash-three: the example page in headless Chromium (Debian's
// `chromium`, driven by puppeteer-core; no browser download).
//
//   node browser.mjs --expected rig.dmx=/tmp/rig.dmx.json [--expected rig.json=…] --shots DIR
//       [--reduced ../js/dash-three/test/six-influences.json=REDUCED.json] [--report examples/rig.dmx=REPORT.json]
//       [--split IN.glb=SPLIT.glb=N=REPORT.json]
//   node browser.mjs --bench FILE.dmx          (decode benchmark; prints times, checks nothing)
//
// For each file it loads examples/web/?file=FILE, reads back from the page the vertex count,
// bone count and the first vertices' skinIndex/skinWeight and compares them with the
// `dashvertex convert` JSON of the same file; poses the animated bone and checks that a vertex
// bound to it moves and one bound elsewhere does not; saves a screenshot and fails when the
// canvas is blank. With --reduced, a file of more than four influences must come out as
// `dashvertex reduce --normalize unit` writes it, with the dropped weight reported; with --report,
// validate() must give the `dash-validate --format json` report. With --split, three.js's own
// GLTFLoader must read the split file as the report's parts (SkinnedMeshes of at most N joints)
// that skin to exactly the input's triangles and draw the input's picture, at the rest pose and
// through the first animation (js/dash-three/test/split.html). Ends with "N passed, N failed".

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name) => {
  const out = [];
  for (let i = 0; i < args.length; i++) if (args[i] === name && i + 1 < args.length) out.push(args[++i]);
  return out;
};
const expected = opt('--expected').map((s) => s.split('='));
const reduced = opt('--reduced').map((s) => s.split('='));
const reports = opt('--report').map((s) => s.split('='));
// --split IN.glb=OUT.glb=N=REPORT.json: OUT is `dashvertex split IN --max-joints N --report REPORT.json`.
const splits = opt('--split').map((s) => s.split('='));
const shots = resolve(opt('--shots')[0] ?? join(repo, 'target/web-test'));
const bench = opt('--bench')[0];
// --inspector DASH-VALIDATE: also the skin inspector's test (web/test/inspector.mjs), in the
// same browser, with expected reports from that dash-validate binary.
const inspectorBin = opt('--inspector')[0];
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';

let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
}

/** Starts a static server (`examples/web/serve.mjs` by default) on a free port; resolves to its base URL. */
function serve(script = 'examples/web/serve.mjs') {
  const child = spawn(process.execPath, [join(repo, script), '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((res, rej) => {
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = text.match(/serving (\S+)/);
      if (m) res({ child, url: m[1] });
    });
    child.on('exit', (code) => rej(new Error(`server exited (${code})`)));
  });
}

/** The vertices of a DashVertex JSON document, array or vertex, padded to four slots per set. */
function vertices(json) {
  const list = Array.isArray(json) ? json : json.vertex ?? [json];
  const pad = (a) => [...(a ?? []), 0, 0, 0, 0].slice(0, 4);
  return list.map((v) => ({
    position: [v.x ?? 0, v.y ?? 0, v.z ?? 0],
    skinIndex: pad(v.skinIndex),
    skinWeight: pad(v.skinWeight),
  }));
}

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

async function testFile(browser, base, file, jsonPath) {
  const { page, errors } = await open(browser, base, file);
  const want = JSON.parse(readFileSync(jsonPath, 'utf8'));
  const wantVertices = vertices(want);
  const wantBones = want.bone ?? [];
  const n = Math.min(4, wantVertices.length);
  const got = await page.evaluate((n) => {
    const p = window.dashPage;
    return {
      vertexCount: p.vertexCount,
      boneCount: p.boneCount,
      boneNames: p.boneNames,
      skinIndex: p.skinIndex(n),
      skinWeight: p.skinWeight(n),
      report: p.report,
      animated: p.animatedBone,
    };
  }, n);
  check(got.vertexCount === wantVertices.length, `${file}: vertex count`, `${got.vertexCount} vs ${wantVertices.length}`);
  check(got.boneCount === wantBones.length, `${file}: bone count`, `${got.boneCount} vs ${wantBones.length}`);
  check(
    JSON.stringify(got.boneNames) === JSON.stringify(wantBones.map((b) => b.name)),
    `${file}: bone names`,
    got.boneNames.join(', '),
  );
  const wantIndex = wantVertices.slice(0, n).flatMap((v) => v.skinIndex);
  const wantWeight = wantVertices.slice(0, n).flatMap((v) => v.skinWeight.map(Math.fround));
  check(JSON.stringify(got.skinIndex) === JSON.stringify(wantIndex), `${file}: skinIndex of the first ${n} vertices`, got.skinIndex.join(' '));
  check(JSON.stringify(got.skinWeight) === JSON.stringify(wantWeight), `${file}: skinWeight of the first ${n} vertices`, got.skinWeight.join(' '));
  check(got.report && got.report.droppedWeight === null && !got.report.reduced, `${file}: nothing reduced (four influences at most)`);

  // A vertex bound only to the animated bone moves when it turns; one bound only to another
  // bone stays.
  const animated = wantBones.findIndex((b) => b.name === got.animated);
  const only = (b) => wantVertices.findIndex((v) => v.skinIndex[0] === b && v.skinWeight[0] === 1);
  const moving = only(animated);
  const still = wantVertices.findIndex((v, i) => i !== moving && v.skinWeight[0] === 1 && v.skinIndex[0] !== animated && v.skinIndex[0] < animated);
  check(moving >= 0 && still >= 0, `${file}: vertices bound to "${got.animated}" (${moving}) and elsewhere (${still})`);
  const at = (angle) =>
    page.evaluate(
      (angle, a, b) => {
        window.dashPage.pose(angle);
        return [window.dashPage.vertexPosition(a), window.dashPage.vertexPosition(b)];
      },
      angle,
      moving,
      still,
    );
  const [rest, posed] = [await at(0), await at(0.6)];
  check(dist(rest[0], wantVertices[moving].position) < 1e-5, `${file}: vertex ${moving} at its bind position before posing`, rest[0].join(' '));
  check(dist(rest[0], posed[0]) > 0.1, `${file}: vertex ${moving} moves with bone "${got.animated}"`, `${dist(rest[0], posed[0]).toFixed(4)}`);
  check(dist(rest[1], posed[1]) < 1e-6, `${file}: vertex ${still} does not move`, `${dist(rest[1], posed[1])}`);

  const pixels = await page.evaluate(() => {
    window.dashPage.render();
    return window.dashPage.pixels();
  });
  check(pixels.colours > 8 && pixels.drawn > 0.005, `${file}: the canvas is not blank`, `${pixels.colours} colours, ${(100 * pixels.drawn).toFixed(2)} % drawn`);
  mkdirSync(shots, { recursive: true });
  const shot = join(shots, `${file.replace(/[^\w.-]/g, '_')}.png`);
  await page.screenshot({ path: shot });
  console.log(`     screenshot: ${relative(process.cwd(), shot)}`);
  check(errors.length === 0, `${file}: no page errors`, errors.join(' | '));
  await page.close();
}

/** Opens the example page on `file` and waits until it is ready; collects page errors and warnings. */
async function open(browser, base, file) {
  const page = await browser.newPage();
  const errors = [];
  const warnings = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warn' || m.type() === 'warning') warnings.push(m.text());
  });
  await page.setViewport({ width: 800, height: 600 });
  await page.goto(`${base}?file=${encodeURIComponent(file)}&animate=0`, { waitUntil: 'load' });
  await page.waitForFunction('window.dashPage && window.dashPage.ready', { timeout: 30000 });
  await page.evaluate('window.dashPage.ready');
  return { page, errors, warnings };
}

/**
 * A file with more than four influences: the page's skinIndex/skinWeight are the heaviest
 * four as `dashvertex reduce --normalize unit` writes them (compared by bone name), and the
 * dropped weight is in the loader's report and a console warning.
 */
async function testReduced(browser, base, file, jsonPath) {
  const { page, errors, warnings } = await open(browser, base, file);
  const want = JSON.parse(readFileSync(jsonPath, 'utf8'));
  const wantVertices = vertices(want);
  const names = (want.bone ?? []).map((b) => b.name);
  const n = wantVertices.length;
  const got = await page.evaluate(
    (n) => ({
      names: window.dashPage.boneNames,
      skinIndex: window.dashPage.skinIndex(n),
      skinWeight: window.dashPage.skinWeight(n),
      report: window.dashPage.report,
    }),
    n,
  );
  const pairs = (idx, w, boneNames) => {
    const out = [];
    for (let v = 0; v < n; v++) {
      const set = [];
      for (let k = 0; k < 4; k++) if (w[4 * v + k] !== 0) set.push(`${boneNames[idx[4 * v + k]]}:${w[4 * v + k]}`);
      out.push(set.sort().join(' '));
    }
    return out;
  };
  const mine = pairs(got.skinIndex, got.skinWeight, got.names);
  const theirs = pairs(
    wantVertices.flatMap((v) => v.skinIndex),
    wantVertices.flatMap((v) => v.skinWeight.map(Math.fround)),
    names,
  );
  check(JSON.stringify(mine) === JSON.stringify(theirs), `${file}: the heaviest four influences, as dashvertex reduce keeps them`, mine.join(' | '));
  const r = got.report;
  const lost = r?.droppedWeight;
  check(r?.reduced && r.influenceSets === 2 && r.reduction.droppedOverLimit === 4, `${file}: reduced from 8 slots, 4 influences dropped`, JSON.stringify(r?.reduction));
  check(lost && lost.vertices === 3 && Math.abs(lost.total - 0.28) < 1e-6, `${file}: dropped weight in loader.lastReport`, JSON.stringify(lost));
  check(warnings.some((w) => w.includes('lost weight')), `${file}: a console warning says what was dropped`, warnings.join(' | '));
  check(errors.length === 0, `${file}: no page errors`, errors.join(' | '));

  // Errors are DashErrors with the validator's code and a location.
  const thrown = await page.evaluate(async () => {
    const { DashLoader } = await import('dash-three');
    try {
      await new DashLoader().parseAsync('{"type": "DashModelExchange", "vertex": [{"x": 1,}]}', 'broken.json');
      return null;
    } catch (e) {
      return { name: e.name, isError: e instanceof Error, code: e.code, message: e.message, location: e.location };
    }
  });
  check(
    thrown?.isError && thrown.name === 'DashError' && thrown.code === 'JSON_SYNTAX' && thrown.location?.line === 1,
    'a broken file throws a DashError with code and location',
    JSON.stringify(thrown),
  );
  await page.close();
}

/**
 * The loader draws what the file means: a vertex without influences stays at its position
 * (bound to the root with weight 1), weights summing to 0.5 are drawn divided by their sum;
 * both are counted in loader.lastReport and named in a console warning.
 */
async function testDisplay(browser, base) {
  const { page, errors, warnings } = await open(browser, base, 'rig.dmx');
  const got = await page.evaluate(async () => {
    const THREE = await import('three');
    const { DashLoader } = await import('dash-three');
    const loader = new DashLoader();
    const text = JSON.stringify({
      type: 'DashModelExchange',
      vertex: [
        { x: 0, y: 2, z: 0 },
        { x: 1, y: 1, z: 0, skinIndex: [0, 1], skinWeight: [0.25, 0.25] },
        { x: 0, y: 1, z: 1, skinIndex: [1], skinWeight: [1] },
      ],
      bone: [
        { name: 'root', position: { x: 0, y: 0.5, z: 0 } },
        { name: 'arm', parentIndex: 0, position: { x: 0, y: 1, z: 0 } },
      ],
    });
    const model = await loader.parseAsync(text, 'display.json');
    const mesh = model.createMesh(new THREE.MeshBasicMaterial());
    mesh.updateMatrixWorld(true);
    const at = (v) => {
      const p = new THREE.Vector3().fromBufferAttribute(model.geometry.attributes.position, v);
      mesh.applyBoneTransform(v, p);
      return p.toArray().map((x) => Math.round(x * 1e6) / 1e6);
    };
    // Bend the arm: the unweighted vertex must not move, the half-weighted one must.
    const rest = [at(0), at(1), at(2)];
    model.skeleton.getBoneByName('arm').rotation.z = 1;
    mesh.updateMatrixWorld(true);
    const bent = [at(0), at(1), at(2)];
    return {
      display: loader.lastReport.display,
      weights: Array.from(model.geometry.attributes.skinWeight.array.slice(0, 8)),
      rest,
      bent,
    };
  });
  const d = got.display;
  check(
    d && d.unweighted.vertices === 1 && d.unweighted.first === 0 && d.normalized.vertices === 1 && d.normalized.first === 1,
    'display: one vertex bound to the root, one normalized, in loader.lastReport',
    JSON.stringify(d),
  );
  check(JSON.stringify(got.weights) === JSON.stringify([1, 0, 0, 0, 0.5, 0.5, 0, 0]), 'display: the weights drawn', JSON.stringify(got.weights));
  check(
    JSON.stringify(got.rest) === JSON.stringify([[0, 2, 0], [1, 1, 0], [0, 1, 1]]),
    'display: at the bind pose every vertex is where the file puts it',
    JSON.stringify(got.rest),
  );
  check(
    JSON.stringify(got.bent[0]) === JSON.stringify([0, 2, 0]) && JSON.stringify(got.bent[1]) !== JSON.stringify([1, 1, 0]),
    'display: bending a bone leaves the unweighted vertex in place and moves the weighted one',
    JSON.stringify(got.bent),
  );
  check(warnings.some((w) => w.includes('drawn as the file means')), 'display: a console warning names both', warnings.join(' | '));

  // With more than four influences somewhere, the reducer runs first: a vertex without
  // influence must still load and stay where the file puts it.
  const wide = await page.evaluate(async () => {
    const THREE = await import('three');
    const { DashLoader } = await import('dash-three');
    const loader = new DashLoader();
    const text = JSON.stringify({
      type: 'DashModelExchange',
      vertex: [
        { x: 0, y: 3, z: 0 },
        { x: 1, y: 1, z: 0, skinIndex: [0, 1, 2, 3], skinWeight: [0.2, 0.2, 0.2, 0.2], skinSets: [{ skinIndex: [4, 0, 0, 0], skinWeight: [0.2, 0, 0, 0] }] },
      ],
      bone: [
        { name: 'root', position: { x: 0, y: 0.5, z: 0 } },
        { name: 'arm', parentIndex: 0, position: { x: 0, y: 1, z: 0 } },
        { name: 'b2', parentIndex: 1, position: { x: 0, y: 1, z: 0 } },
        { name: 'b3', parentIndex: 2, position: { x: 0, y: 1, z: 0 } },
        { name: 'b4', parentIndex: 3, position: { x: 0, y: 1, z: 0 } },
      ],
    });
    try {
      const model = await loader.parseAsync(text, 'wide.json');
      const mesh = model.createMesh(new THREE.MeshBasicMaterial());
      mesh.updateMatrixWorld(true);
      const p = new THREE.Vector3().fromBufferAttribute(model.geometry.attributes.position, 0);
      mesh.applyBoneTransform(0, p);
      return { display: loader.lastReport.display, reduced: loader.lastReport.reduced, at: p.toArray() };
    } catch (e) {
      return { error: String(e.message ?? e) };
    }
  });
  check(
    wide.reduced && wide.display?.unweighted.vertices === 1 && JSON.stringify(wide.at) === JSON.stringify([0, 3, 0]),
    'display: with more than four influences elsewhere, a vertex without influence loads and stays put',
    JSON.stringify(wide),
  );
  check(errors.length === 0, 'display: no page errors', errors.join(' | '));
  await page.close();
}

/**
 * `dashvertex split` seen by three.js: the split file loads as the report's parts, each a
 * SkinnedMesh of at most N joints, and at the rest pose and at times through the first
 * animation it skins to the input's triangles (as a multiset, on the CPU as the shader does)
 * and draws the input's picture (render targets compared pixel by pixel).
 */
async function testSplit(browser, base, input, output, n, reportPath) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewport({ width: 640, height: 400 });
  const url = new URL('../../js/dash-three/test/split.html', base).href;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction('window.splitCheck?.ready', { timeout: 30000 });
  const name = input.split('/').pop();
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const parts = report.primitives.reduce((k, p) => k + p.parts.length, 0);
  const b64 = (f) => readFileSync(resolve(repo, f)).toString('base64');
  const got = await page.evaluate((a, b) => window.splitCheck.compare(a, b, [0, 0.4, 0.9, 1.7]), b64(input), b64(output));
  const what = `${name} split to ${n} joints`;
  check(got.skinnedB > got.skinnedA, `${what}: three.js reads more SkinnedMeshes`, `${got.skinnedA} -> ${got.skinnedB}`);
  check(got.skinnedB === got.skinnedA - report.primitives.length + parts, `${what}: as many as the report's parts`, `${got.skinnedB}, report ${parts} parts`);
  check(got.usedB.every((j) => j <= n) && got.jointsB.every((j) => j <= n), `${what}: every SkinnedMesh has at most ${n} joints`, `skeletons ${got.jointsB.join(' ')}; in use ${got.usedB.join(' ')}`);
  for (const f of got.frames) {
    const at = `${what}, t = ${f.t.toFixed(2)} s`;
    check(f.trianglesA > 0 && f.trianglesA === f.trianglesB && f.differentTriangles === 0, `${at}: the same skinned triangles`, `${f.trianglesA} vs ${f.trianglesB}, ${f.differentTriangles} differ`);
    check(f.drawn > f.pixels / 50, `${at}: the input draws something`, `${f.drawn} of ${f.pixels} pixels`);
    check(f.differentPixels <= f.pixels / 1000, `${at}: the same picture`, `${f.differentPixels} of ${f.pixels} pixels differ`);
  }
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `split-${name.replace(/\.[^.]*$/, '')}-${n}.png`) });
  check(errors.length === 0, `${what}: no page errors`, errors.join(' | '));
  await page.close();
}

/** validate() in the page gives the report `dash-validate --format json` printed. */
async function testReport(browser, base, file, reportPath) {
  const { page } = await open(browser, base, 'rig.dmx');
  const got = await page.evaluate(async (file) => {
    const { validate } = await import('dash-three');
    const bytes = new Uint8Array(await (await fetch(`/${file}`)).arrayBuffer());
    return validate(bytes, file);
  }, file);
  const want = JSON.parse(readFileSync(reportPath, 'utf8'));
  check(JSON.stringify(got) === JSON.stringify(want), `${file}: validate() gives the dash-validate --format json report`, JSON.stringify(got.files?.[0]?.codes));
  await page.close();
}

async function runBench(browser, base, file) {
  const page = await browser.newPage();
  await page.goto(`${base}?animate=0`, { waitUntil: 'load' });
  await page.waitForFunction('window.dashBench', { timeout: 30000 });
  const url = `/${relative(repo, resolve(file)).split('\\').join('/')}`;
  const r = await page.evaluate((url) => window.dashBench(url, 7), url);
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  console.log(
    `browser decode: ${r.bytes} bytes, median decode ${median(r.decode).toFixed(1)} ms, ` +
      `decode + typed arrays ${median(r.arrays).toFixed(1)} ms (runs: ${r.decode.map((t) => t.toFixed(1)).join(' ')})`,
  );
  console.log(`BROWSER_DECODE_MS=${median(r.decode).toFixed(2)} BROWSER_ARRAYS_MS=${median(r.arrays).toFixed(2)}`);
  await page.close();
}

const { child, url } = await serve();
const servers = [child];
let browser;
try {
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', // CI runs as root
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist',
    ],
  });
  console.log(`browser: ${await browser.version()}, page: ${url}`);
  if (bench) {
    await runBench(browser, url, bench);
  } else {
    for (const [file, json] of expected) await testFile(browser, url, file, json);
    for (const [file, json] of reduced) await testReduced(browser, url, file, json);
    for (const [file, json] of reports) await testReport(browser, url, file, json);
    for (const [input, output, n, report] of splits) await testSplit(browser, url, input, output, Number(n), report);
    await testDisplay(browser, url);
    if (expected.length === 0) check(false, 'no --expected file given');
    if (inspectorBin) {
      const { makeCases, testInspector } = await import('../../../web/test/inspector.mjs');
      const web = await serve('web/serve.mjs');
      servers.push(web.child);
      const t0 = Date.now();
      await testInspector(browser, web.url, { cases: makeCases(repo, resolve(inspectorBin), shots), shots, repo }, check);
      console.log(`     inspector test: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
} catch (e) {
  check(false, 'browser run', e.stack ?? String(e));
} finally {
  await browser?.close();
  for (const c of servers) c.kill();
}
if (!bench) console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
