#!/usr/bin/env node
// Oracle: run the official Khronos glTF validator (npm gltf-validator, pinned in
// package.json) over glTF/GLB files and print one JSON line per file.
// Usage: node tools/oracle/validate.mjs FILE [FILE...]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node tools/oracle/validate.mjs FILE [FILE...]\n');
  process.exit(2);
}

function describe(err) {
  if (err instanceof Error) return err.message || String(err);
  return typeof err === 'string' ? err : String(err);
}

for (const file of files) {
  let line;
  try {
    const bytes = await readFile(file);
    const dir = path.dirname(path.resolve(file));
    const report = await validator.validateBytes(new Uint8Array(bytes), {
      uri: path.basename(file),
      format: path.extname(file).toLowerCase() === '.glb' ? 'glb' : 'gltf',
      maxIssues: 0,
      writeTimestamp: false,
      // Sibling resources (.bin, images) are read relative to the asset's folder;
      // a missing one rejects, which the validator records as an issue.
      externalResourceFunction: (uri) =>
        readFile(path.resolve(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
    line = { file, ok: true, report };
  } catch (err) {
    line = { file, ok: false, error: describe(err) };
  }
  process.stdout.write(JSON.stringify(line) + '\n');
}
process.exit(0);
