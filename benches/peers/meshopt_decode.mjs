// The meshopt decoder's own decode of a GLB, for benches/meshopt_peers.py: every buffer
// view compressed with EXT_meshopt_compression or KHR_meshopt_compression is decoded by
// the meshoptimizer npm package's MeshoptDecoder (the decoder three.js's GLTFLoader and
// glTF-Transform use) and, with an output path, the file is written back as a plain GLB:
// decoded views and the other views of buffer 0 in one binary chunk, fallback buffers and
// the compression extension dropped (KHR_mesh_quantization, if used, stays).
//
//   node meshopt_decode.mjs IN.glb [OUT.glb]
//
// meshoptimizer is found through MESHOPT_NODE_MODULES (a node_modules folder holding it).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const [input, output] = process.argv.slice(2);
if (!input) {
  process.stderr.write('usage: node meshopt_decode.mjs IN.glb [OUT.glb]\n');
  process.exit(2);
}
const modules = process.env.MESHOPT_NODE_MODULES;
if (!modules) {
  process.stderr.write('set MESHOPT_NODE_MODULES to a node_modules folder holding meshoptimizer\n');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), 'x.js'));
const { MeshoptDecoder } = require('meshoptimizer');
await MeshoptDecoder.ready;

const glb = fs.readFileSync(input);
if (glb.readUInt32LE(0) !== 0x46546c67) throw new Error(`${input} is not a GLB`);
const jsonLength = glb.readUInt32LE(12);
const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
const binAt = 20 + jsonLength;
const bin = binAt + 8 <= glb.length
  ? glb.subarray(binAt + 8, binAt + 8 + glb.readUInt32LE(binAt))
  : Buffer.alloc(0);

const NAMES = ['EXT_meshopt_compression', 'KHR_meshopt_compression'];
const compression = (v) => v.extensions && NAMES.map((n) => v.extensions[n]).find(Boolean);

// Decode every compressed view (the decode this benchmark times), keeping the others.
const started = performance.now();
const parts = json.bufferViews.map((v) => {
  const e = compression(v);
  if (!e) {
    if (v.buffer !== 0) throw new Error('a plain view outside the GLB buffer');
    const at = v.byteOffset || 0;
    return bin.subarray(at, at + v.byteLength);
  }
  if (e.buffer !== 0) throw new Error('a compressed stream outside the GLB buffer');
  const dst = new Uint8Array(e.count * e.byteStride);
  const at = e.byteOffset || 0;
  MeshoptDecoder.decodeGltfBuffer(
    dst, e.count, e.byteStride, bin.subarray(at, at + e.byteLength), e.mode, e.filter,
  );
  return dst;
});
// The decode alone, in this process (node's start and the file's read excluded).
process.stdout.write(`decode ${(performance.now() - started).toFixed(3)} ms\n`);

if (output) {
  // One binary chunk: every view 4-byte aligned, in view order.
  let length = 0;
  const offsets = parts.map((p) => {
    const o = length;
    length = (length + p.length + 3) & ~3;
    return o;
  });
  const out = Buffer.alloc(length);
  parts.forEach((p, i) => {
    out.set(p, offsets[i]);
    const v = json.bufferViews[i];
    v.buffer = 0;
    v.byteOffset = offsets[i];
    v.byteLength = p.length;
    if (v.extensions) {
      for (const n of NAMES) delete v.extensions[n];
      if (Object.keys(v.extensions).length === 0) delete v.extensions;
    }
  });
  // The streams were the only data of buffer 0 besides the plain views; fallback buffers
  // had none. Buffers other than 0 are dropped: every view now lies in buffer 0.
  json.buffers = [{ byteLength: length }];
  for (const k of ['extensionsUsed', 'extensionsRequired']) {
    if (json[k]) {
      json[k] = json[k].filter((n) => !NAMES.includes(n));
      if (json[k].length === 0) delete json[k];
    }
  }
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  const padded = Buffer.alloc((text.length + 3) & ~3, 0x20);
  text.copy(padded);
  text = padded;
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + text.length + 8 + out.length, 8);
  const chunk = (type, body) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(body.length, 0);
    h.writeUInt32LE(type, 4);
    return [h, body];
  };
  fs.writeFileSync(output, Buffer.concat([
    header, ...chunk(0x4e4f534a, text), ...chunk(0x004e4942, out),
  ]));
}
