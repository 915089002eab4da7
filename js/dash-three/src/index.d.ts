// Types of dash-three (src/index.js).

import {
  Bone,
  BufferGeometry,
  Loader,
  LoadingManager,
  Material,
  Mesh,
  Skeleton,
  SkinnedMesh,
} from 'three';

/** Where a finding or failure is: the fields that apply (a report diagnostic's location). */
export interface DashLocation {
  vertex?: number;
  set?: number;
  slot?: number;
  bone?: number;
  /** Byte offset in a binary file. */
  offset?: number;
  /** JSON Pointer in a JSON file. */
  pointer?: string;
  line?: number;
  column?: number;
}

/** What the WebAssembly module throws: an Error with the validator's code and a location. */
export interface DashError extends Error {
  name: 'DashError';
  /** `JSON_SYNTAX`, `BINARY_STRUCTURE`, `LIMIT_EXCEEDED`, `FORMAT_UNKNOWN`, `NOT_DASHVERTEX`,
   * `OPTIONS_INVALID`, `REDUCE_FAILED`, `ENCODE_FAILED`, … */
  code: string;
  location: DashLocation | null;
}

/** An influence the reducer dropped. */
export interface DroppedInfluence {
  weight: number;
  vertex: number;
  bone: number;
  at: string;
}

/** The weight a reduction dropped (influences whose bone a vertex no longer has). */
export interface DroppedWeight {
  /** Vertices that lost weight. */
  vertices: number;
  /** Their lost weight added up. */
  total: number;
  /** The vertex that lost the largest share of its weight. */
  worst: { vertex: number; weight: number; share: number } | null;
}

/** The dash reducer's report (`Model.reduce`). */
export interface ReductionReport {
  maxInfluences: number;
  sets: number;
  vertices: number;
  changed: number;
  droppedOverLimit: number;
  belowThreshold: number;
  roundedAway: number;
  merged: number;
  negative: number;
  firstNegative: DroppedInfluence | null;
  largestDropped: DroppedInfluence | null;
  empty: number;
  firstEmpty: number | null;
  maxInfluencesIn: number;
  droppedWeight: DroppedWeight;
}

/** The reducer's settings (the flags of `dashvertex reduce`). */
export interface ReduceOptions {
  maxInfluences?: number;
  normalize?: 'none' | 'unit';
  quantize?: 'f32' | 'unorm16' | 'unorm8';
  minWeight?: number;
  empty?: 'error' | 'zero' | 'root';
}

/** The validator's settings (the flags of `dash-validate`). */
export interface ValidateOptions {
  profile?: 'dash' | 'gltf';
  bones?: number;
  denyWarnings?: boolean;
  maxDiagnostics?: number;
  format?: 'json' | 'dmx' | 'raw' | 'gltf' | 'glb';
  allow?: string[];
  warn?: string[];
  deny?: string[];
}

/** One diagnostic of a validation report. */
export interface Diagnostic {
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  location: DashLocation;
  [member: string]: unknown;
}

/** The JSON report of `dash-validate --format json` (schemas/validation-report.schema.json). */
export interface ValidationReport {
  version: number;
  tool: string;
  files: Array<{
    file: string;
    format: string | null;
    profile: 'dash' | 'gltf';
    valid: boolean;
    counts: { errors: number; warnings: number; infos: number };
    codes: Record<string, number>;
    truncated: boolean;
    diagnostics: Diagnostic[];
  }>;
  summary: {
    files: number;
    valid: number;
    invalid: number;
    counts: { errors: number; warnings: number; infos: number };
  };
}

/** What DashLoader read, and what it dropped to fit three.js's four influences. */
export interface DashLoadReport {
  file: string;
  format: 'json' | 'dmx' | 'raw';
  vertices: number;
  bones: number;
  /** Influence sets of four in the file (more than 1: reduced to four influences). */
  influenceSets: number;
  reduced: boolean;
  reduction: ReductionReport | null;
  droppedWeight: DroppedWeight | null;
  /**
   * What the loader changed so that three.js draws what the file means (null for an
   * unskinned file): vertices without influence, bound to the root bone with weight 1,
   * and vertices whose weights do not sum to 1, divided by their sum. `first` is -1
   * when there is none.
   */
  display: {
    unweighted: { vertices: number; first: number };
    normalized: { vertices: number; first: number };
  } | null;
  /** Things the loader had to work around (an invalid parent, no skeleton, the display changes). */
  problems: string[];
}

/** A loaded file, ready for a SkinnedMesh. */
export class DashModel {
  /** `position`, and for a skinned file `skinIndex` (Uint16 or Uint32) and `skinWeight`. */
  geometry: BufferGeometry;
  /** The file's bones in their bind pose (null for an unskinned file). */
  skeleton: Skeleton | null;
  bones: Bone[];
  rootBones: Bone[];
  report: DashLoadReport;
  /** A SkinnedMesh bound to the skeleton (a Mesh for an unskinned file); call once. */
  createMesh(material?: Material): SkinnedMesh | Mesh;
}

/** Loads DashVertex JSON, DMX containers and raw records. */
export class DashLoader extends Loader<DashModel> {
  constructor(manager?: LoadingManager);
  /** Reducer settings for files with more than four influences (default THREE_REDUCTION). */
  reduction: ReduceOptions;
  /** Warn on the console when a reduction drops weight (default true). */
  warnOnDrop: boolean;
  /** Whether to warn on the console when weights are changed for display (see `DashLoadReport.display`). */
  warnOnDisplay: boolean;
  /** The report of the last file parsed. */
  lastReport: DashLoadReport | null;
  load(
    url: string,
    onLoad: (model: DashModel) => void,
    onProgress?: (event: ProgressEvent) => void,
    onError?: (err: unknown) => void,
  ): void;
  parse(
    data: ArrayBuffer | ArrayBufferView | string,
    name: string,
    onLoad: (model: DashModel) => void,
    onError?: (err: unknown) => void,
  ): void;
  parseAsync(data: ArrayBuffer | ArrayBufferView | string, name?: string): Promise<DashModel>;
}

/** Where the first changed vertex is (-1 for none) and how many changed. */
export interface DisplayCount {
  vertices: number;
  first: number;
}

/**
 * Makes four-per-vertex weights draw what the file means, in place: a vertex without
 * positive weight is bound to joint `root` with weight 1, other sums are divided out.
 */
export function displayWeights(
  skinIndex: Uint16Array | Uint32Array,
  skinWeight: Float32Array,
  root: number,
): { unweighted: DisplayCount; normalized: DisplayCount };

/** Four influences, weights summing to 1, vertices without influence kept empty. */
export const THREE_REDUCTION: Readonly<ReduceOptions>;

/** Validates a file: the `dash-validate --format json` report as an object. */
export function validate(
  data: ArrayBuffer | ArrayBufferView | string,
  name?: string,
  options?: ValidateOptions,
): Promise<ValidationReport>;

/** A decoded file in the WebAssembly module (`dashWasm().decode`). */
export interface WasmModel {
  readonly format: string;
  readonly vertexCount: number;
  readonly setCount: number;
  readonly skinned: boolean;
  readonly boneCount: number;
  readonly hasSkeleton: boolean;
  positions(): Float32Array;
  skinIndex(set: number): Uint16Array | Uint32Array;
  skinWeight(set: number): Float32Array;
  boneNames(): string[];
  boneParents(): Int32Array;
  bonePositions(): Float32Array;
  boneRotations(): Float32Array;
  boneScales(): Float32Array;
  /** Only in the "full" module. */
  reduce?(options?: ReduceOptions): { readonly model: WasmModel; readonly report: ReductionReport; free(): void };
  /** Only in the "full" module. */
  encode?(format: 'dmx' | 'json' | 'raw'): Uint8Array;
  free(): void;
}

/** The WebAssembly module's functions. */
export interface DashWasm {
  decode(bytes: Uint8Array, name?: string | null, format?: string | null): WasmModel;
  validate(bytes: Uint8Array, name?: string | null, options?: ValidateOptions): string;
  version(): string;
}

/** The WebAssembly module: "core" (decode, validate) or "full" (also reduce, encode). */
export function dashWasm(kind?: 'core' | 'full'): Promise<DashWasm>;
