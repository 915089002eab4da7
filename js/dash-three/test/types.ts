// Compiled by `tsc --noEmit` only: the README's uses of the package type-check.
import { Scene, SkinnedMesh, MeshBasicMaterial } from 'three';
import { DashLoader, validate, dashWasm, type DashModel, type DashError } from '../src/index.js';

export async function readme(scene: Scene): Promise<void> {
  const loader = new DashLoader();
  const model: DashModel = await loader.loadAsync('rig.dmx');
  const mesh = model.createMesh(new MeshBasicMaterial());
  scene.add(mesh);
  if (mesh instanceof SkinnedMesh) mesh.skeleton.bones[1].rotation.z = 0.5;
  model.skeleton!.getBoneByName('head')!.rotation.z = 0.5;
  const dropped: number = loader.lastReport?.droppedWeight?.total ?? 0;
  const report = await validate(new Uint8Array(8), 'x.dmx', { profile: 'gltf' });
  const valid: boolean = report.files[0].valid;
  const wasm = await dashWasm('full');
  const decoded = wasm.decode(new Uint8Array(8), 'x.dmx');
  const idx: Uint16Array | Uint32Array = decoded.skinIndex(0);
  decoded.free();
  loader.load('rig.json', (m) => console.log(m.report.vertices, idx, dropped, valid), undefined, (e) => {
    const err = e as DashError;
    console.error(err.code, err.location?.offset);
  });
}
