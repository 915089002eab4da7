// The inspector on meshopt-compressed files (issue 48): gltfpack's `-c` output
// (EXT_meshopt_compression with KHR_mesh_quantization, fixtures/compressed/) opened
// through the file input must show what the uncompressed file gltfpack wrote from the
// same model shows (fixtures/compressed/README.md: same vertex order): the same vertex
// count, the same influences per vertex and per bone, the same positions, the same
// verdict, drawn, and no page error. The independent reader (gltf-read.mjs) does not
// decode meshopt, so the uncompressed twin, through the same page, is the reference.

import { join } from 'node:path';

const PAIRS = [
  ['rs_pack_c.glb', 'rs_pack.glb'],
  ['rf_pack_c.glb', 'rf_pack.glb'],
];

/** What the page shows of the file it has open. */
async function shown(page) {
  return page.evaluate(() => {
    const ins = window.dashInspector;
    const influences = ins.values('influences');
    const bones = ins.boneNames;
    const count = influences.length;
    const at = [0, Math.floor(count / 2), count - 1].map((v) => ins.vertexPosition(v));
    return {
      count,
      influences,
      sum: ins.values('sum'),
      bones,
      perBone: bones.map((b) => ins.values('bone', b)),
      at,
      valid: ins.report.files[0].valid,
      errors: ins.report.files[0].diagnostics.filter((d) => d.severity === 'error').map((d) => d.code),
      drawn: ins.drawn.map((d) => `${d.topology} ${d.skinned}`),
      pixels: ins.pixels().drawn,
    };
  });
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Opens each compressed fixture and its uncompressed twin in `session`'s page. */
export async function testMeshopt(session, repo, upload, check) {
  const { page, errors } = session;
  for (const [compressed, plain] of PAIRS) {
    errors.length = 0;
    const dir = join(repo, 'fixtures/compressed');
    const p = await upload(page, [join(dir, plain)]);
    check(p.state === 'ready', `inspector ${plain}: ready`);
    const want = await shown(page);
    const c = await upload(page, [join(dir, compressed)]);
    check(c.state === 'ready', `inspector ${compressed} (meshopt): ready`);
    const got = await shown(page);
    check(got.count > 0 && got.count === want.count, `inspector ${compressed}: ${want.count} vertices, as ${plain}`, `${got.count} vs ${want.count}`);
    check(same(got.influences, want.influences) && same(got.sum, want.sum), `inspector ${compressed}: the influences and sums of ${plain}`);
    check(same(got.bones, want.bones) && same(got.perBone, want.perBone), `inspector ${compressed}: each of ${want.bones.length} bones' weights as in ${plain}`);
    check(same(got.at, want.at), `inspector ${compressed}: vertices drawn where ${plain}'s are`, `${JSON.stringify(got.at)} vs ${JSON.stringify(want.at)}`);
    check(got.valid === want.valid && same(got.errors, want.errors), `inspector ${compressed}: the verdict of ${plain}`, `${got.valid} ${got.errors} vs ${want.valid} ${want.errors}`);
    check(same(got.drawn, want.drawn) && got.pixels > 0.002, `inspector ${compressed}: drawn, skinned, as ${plain}`, `${got.drawn} (${got.pixels})`);
    check(errors.length === 0, `inspector ${compressed}: no page errors`, errors.join(' | '));
  }
}
