// The numbers each colour mode shows, per vertex of a decoded primitive, and the colours
// they map to. A primitive here is what the inspector module decoded: `vertexCount`,
// `sets` (each `{ joints: Uint32Array, weights: Float32Array }`, four per vertex),
// `jointNames` (the skin's joint names, by joint index) and `diagnosed` (vertices a
// diagnostic names).

/** Per vertex: the count of non-zero weights over every set. */
export function influences(p) {
  const out = new Float64Array(p.vertexCount);
  for (const s of p.sets) {
    for (let i = 0; i < s.weights.length; i++) if (s.weights[i] !== 0) out[i >> 2] += 1;
  }
  return out;
}

/** Per vertex: the weight of the joints named `name` (every set, repeats added). */
export function boneWeight(p, name) {
  const out = new Float64Array(p.vertexCount);
  const wanted = new Set();
  p.jointNames.forEach((n, j) => {
    if (n === name) wanted.add(j);
  });
  for (const s of p.sets) {
    for (let i = 0; i < s.weights.length; i++) if (wanted.has(s.joints[i])) out[i >> 2] += s.weights[i];
  }
  return out;
}

/** Per vertex: the sum of its weights over every set. */
export function weightSum(p) {
  const out = new Float64Array(p.vertexCount);
  for (const s of p.sets) for (let i = 0; i < s.weights.length; i++) out[i >> 2] += s.weights[i];
  return out;
}

/** Per vertex: 1 where a diagnostic of the report names it, else 0. */
export function diagnosed(p) {
  const out = new Float64Array(p.vertexCount);
  for (const v of p.diagnosed) if (v < out.length) out[v] = 1;
  return out;
}

/** Colour ramp blue → cyan → green → yellow → red for t in [0, 1]. */
function ramp(t, out, o) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 1));
  const stops = [
    [0.1, 0.2, 0.85],
    [0.1, 0.75, 0.9],
    [0.2, 0.8, 0.3],
    [0.95, 0.85, 0.2],
    [0.9, 0.15, 0.1],
  ];
  const f = x * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const u = f - i;
  for (let c = 0; c < 3; c++) out[o + c] = stops[i][c] * (1 - u) + stops[i + 1][c] * u;
}

const GREY = [0.42, 0.44, 0.48];
const INFLUENCE_COLOURS = [
  GREY,
  [0.2, 0.4, 0.95],
  [0.2, 0.8, 0.9],
  [0.3, 0.85, 0.35],
  [0.95, 0.85, 0.25],
  [0.98, 0.55, 0.15],
  [0.95, 0.3, 0.1],
  [0.85, 0.1, 0.4],
  [0.7, 0.1, 0.75],
];

/** The legend of a mode: `[label, [r, g, b]]`. */
export function legend(mode) {
  const hex = (c) => c;
  switch (mode) {
    case 'influences':
      return INFLUENCE_COLOURS.map((c, i) => [i === 8 ? '8+' : String(i), hex(c)]);
    case 'sum':
      return [
        ['0', [0.1, 0.2, 0.85]],
        ['< 1', [0.2, 0.8, 0.9]],
        ['1', [0.3, 0.85, 0.35]],
        ['> 1', [0.9, 0.15, 0.1]],
      ];
    case 'diagnostics':
      return [
        ['no finding', GREY],
        ['named by a diagnostic', [0.95, 0.2, 0.15]],
      ];
    case 'dropped':
      return [
        ['0', GREY],
        ['> 0', [0.1, 0.2, 0.85]],
        ['0.25', [0.2, 0.8, 0.3]],
        ['≥ 0.5', [0.9, 0.15, 0.1]],
      ];
    default:
      return [
        ['0', [0.1, 0.2, 0.85]],
        ['0.5', [0.2, 0.8, 0.3]],
        ['1', [0.9, 0.15, 0.1]],
      ];
  }
}

/** RGB per vertex (a Float32Array of 3 × count) for `values` shown as `mode`. */
export function colours(mode, values) {
  const out = new Float32Array(values.length * 3);
  for (let v = 0; v < values.length; v++) {
    const x = values[v];
    const o = 3 * v;
    if (mode === 'influences') {
      out.set(INFLUENCE_COLOURS[Math.min(8, x)], o);
    } else if (mode === 'sum') {
      if (Math.abs(x - 1) <= 2e-6) out.set([0.3, 0.85, 0.35], o);
      else if (x > 1) out.set([0.9, 0.15, 0.1], o);
      else ramp(0.25 * Math.max(0, x), out, o);
    } else if (mode === 'diagnostics') {
      out.set(x ? [0.95, 0.2, 0.15] : GREY, o);
    } else if (mode === 'dropped') {
      if (x > 0) ramp(Math.min(1, x / 0.5), out, o);
      else out.set(GREY, o);
    } else {
      ramp(x, out, o);
    }
  }
  return out;
}
