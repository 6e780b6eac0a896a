/**
 * A tiny element builder: `h('td', { class: 'num' }, 12)`. Text goes in as text nodes, never as
 * HTML, so nothing read from the API can become markup.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A table from rows: `columns` are `[heading, (row) => cell, { num }?]`. */
export function table(columns, rows, rowAttrs = () => ({})) {
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map(([title, , o]) => h('th', { class: o?.num ? 'num' : undefined }, title)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          rowAttrs(r),
          columns.map(([, cell, o]) => h('td', { class: o?.num ? 'num' : undefined }, cell(r))),
        ),
      ),
    ),
  );
}

export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
