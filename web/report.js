// The report list: the `dash-validate --format json` report of the shown file, its
// diagnostics grouped by code (severity, message, Khronos code, location); clicking one
// calls `onSelect(i)` with its index in the report.

/** A location as one line: `vertex 3, set 0 slot 1, /meshes/0/… (12:5), byte 96`. */
export function where(loc = {}) {
  const parts = [];
  if (loc.vertex !== undefined) parts.push(`vertex ${loc.vertex}`);
  if (loc.bone !== undefined) parts.push(`bone ${loc.bone}`);
  if (loc.set !== undefined) parts.push(loc.slot !== undefined ? `set ${loc.set} slot ${loc.slot}` : `set ${loc.set}`);
  if (loc.pointer !== undefined) parts.push(loc.line !== undefined ? `${loc.pointer} (${loc.line}:${loc.column})` : loc.pointer);
  if (loc.offset !== undefined) parts.push(`byte ${loc.offset}`);
  return parts.length ? parts.join(', ') : 'the whole file';
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

/** Fills `root` with the report's diagnostics grouped by code, and `summary` with counts. */
export function renderReport(root, summary, report, onSelect) {
  root.replaceChildren();
  const file = report.files?.[0];
  if (!file) {
    summary.textContent = '';
    return;
  }
  const diags = file.diagnostics ?? [];
  const groups = new Map();
  diags.forEach((d, i) => {
    if (!groups.has(d.code)) groups.set(d.code, []);
    groups.get(d.code).push([d, i]);
  });
  const total = file.counts ? Object.entries(file.counts).map(([k, v]) => `${v} ${k}`).join(', ') : `${diags.length} listed`;
  summary.textContent = `${file.valid ? 'valid' : 'invalid'}: ${total}`;
  if (diags.length === 0) root.append(el('p', { textContent: 'No diagnostics.' }));
  for (const [code, list] of groups) {
    const first = list[0][0];
    const head = el(
      'summary',
      { className: `sev-${first.severity}` },
      `${code} · ${first.severity} · ${list.length}`,
      first.khronos?.length ? ` · Khronos ${first.khronos.join(', ')}` : '',
    );
    const ol = el('ol');
    for (const [d, i] of list) {
      const li = el('li', { title: d.help ?? '' }, d.message, el('span', { className: 'where', textContent: where(d.location) }));
      li.dataset.index = String(i);
      li.addEventListener('click', () => onSelect(i));
      ol.append(li);
    }
    root.append(el('details', { open: groups.size <= 6 }, head, ol));
  }
  const shown = diags.length;
  const all = file.summary?.total ?? null;
  if (all !== null && all > shown) root.append(el('p', { textContent: `${all - shown} more not listed (the report keeps the first ${shown}).` }));
}

/** Marks the list item of diagnostic `i` and opens its group. */
export function highlightItem(i) {
  document.querySelectorAll('#report li.selected').forEach((li) => li.classList.remove('selected'));
  const li = document.querySelector(`#report li[data-index="${i}"]`);
  if (li) {
    li.classList.add('selected');
    li.closest('details').open = true;
    li.scrollIntoView({ block: 'nearest' });
  }
}
