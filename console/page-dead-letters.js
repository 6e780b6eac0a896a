import { api } from './api.js';
import { h, table } from './dom.js';

const ref = (l) => ({ type: l.type, partition: l.partition, id: l.id });
const path = (l) => `${l.type}/${l.partition}/${l.id}`;

export function mount(el) {
  const error = h('p', { class: 'error', role: 'alert' });
  const status = h('p', { class: 'ok', role: 'status' });
  const list = h('div');
  const detail = h('div');
  const actions = h('div');
  const selected = new Map();

  async function act(action, letters) {
    if (letters.length === 0) return;
    if (!confirm(`${action === 'replay' ? 'Replay' : 'Discard'} ${letters.length} dead letter(s)?`)) return;
    try {
      const { results } = await api(`/v1/dead-letters/${action}`, {
        method: 'POST',
        body: { items: letters.map(ref) },
      });
      status.textContent = results.map((r) => `${path(r)}: ${r.status}`).join('; ');
      selected.clear();
      detail.replaceChildren();
      await load();
    } catch (err) {
      error.textContent = err.message;
    }
  }

  async function inspect(l) {
    const full = await api(`/v1/dead-letters/${encodeURIComponent(l.type)}/${l.partition}/${encodeURIComponent(l.id)}`);
    detail.replaceChildren(
      h('h2', {}, `Dead letter ${path(l)}`),
      h(
        'div',
        { class: 'row' },
        h('button', { id: 'replay-one', onclick: () => act('replay', [l]) }, 'Replay'),
        h('button', { id: 'discard-one', onclick: () => act('discard', [l]) }, 'Discard'),
      ),
      h('pre', { 'data-detail': path(l) }, JSON.stringify(full, null, 2)),
    );
  }

  async function load() {
    try {
      const { items, total } = await api('/v1/dead-letters?limit=200');
      list.replaceChildren(
        h(
          'p',
          { class: 'muted' },
          `${total} dead letter(s)${total > items.length ? `, the newest ${items.length} shown` : ''}.`,
        ),
        h(
          'div',
          { class: 'row' },
          h('button', { onclick: () => act('replay', [...selected.values()]) }, 'Replay selected'),
          h('button', { onclick: () => act('discard', [...selected.values()]) }, 'Discard selected'),
        ),
        table(
          [
            [
              '',
              (l) =>
                h('input', {
                  type: 'checkbox',
                  'aria-label': `select ${path(l)}`,
                  onchange: (e) => (e.target.checked ? selected.set(path(l), l) : selected.delete(path(l))),
                }),
            ],
            ['when', (l) => l.at],
            [
              'where',
              (l) =>
                h(
                  'a',
                  {
                    href: '#/dead-letters',
                    onclick: (e) => (e.preventDefault(), inspect(l).catch((x) => (error.textContent = x.message))),
                  },
                  path(l),
                ),
            ],
            ['key', (l) => l.key],
            ['kind', (l) => l.kind],
            ['error', (l) => l.error],
          ],
          items,
          (l) => ({ 'data-letter': path(l) }),
        ),
      );
      const recent = await api('/v1/operator-actions?limit=20');
      actions.replaceChildren(
        h('h2', {}, 'Recorded operator actions'),
        table(
          [
            ['when', (a) => a.at],
            ['who (key id)', (a) => a.keyId],
            ['action', (a) => a.action],
            ['target', (a) => a.target],
          ],
          recent.items,
        ),
      );
    } catch (err) {
      error.textContent = err.message;
    }
  }

  el.append(h('h1', {}, 'Dead letters'), error, status, list, detail, actions);
  void load();
}
