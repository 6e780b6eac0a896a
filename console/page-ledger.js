import { api, stream } from './api.js';
import { h, table } from './dom.js';

export function mount(el) {
  const error = h('p', { class: 'error', role: 'alert' });
  const state = h('div');
  const blocks = h('div');
  const bar = h('progress', { max: 1, value: 0, hidden: true });
  const outcome = h('p', { id: 'verify-result', role: 'status' });
  const button = h('button', { type: 'button', id: 'verify' }, 'Verify the journal');
  const running = new AbortController();

  async function load() {
    const health = await fetch('/health', { cache: 'no-store' }).then((r) => r.json());
    const l = health.ledger ?? {};
    state.replaceChildren(
      table(
        [
          ['backend', () => l.backend],
          ['height', () => l.height, { num: true }],
          ['status', () => l.status],
          ['writer', () => l.writer],
          ['queued entries', () => l.queuedEntries, { num: true }],
          ['anchors pending', () => l.pendingAnchors, { num: true }],
          ['last error', () => l.lastError ?? '—'],
        ],
        [l],
      ),
    );
    const { items } = await api('/v1/ledger/blocks?limit=10');
    blocks.replaceChildren(
      h('h2', {}, 'Last blocks'),
      table(
        [
          ['height', (b) => b.height, { num: true }],
          ['entries', (b) => b.entryCount, { num: true }],
          ['hash', (b) => b.hash],
          ['anchor', (b) => b.anchor?.status ?? b.anchorStatus ?? '—'],
          ['at', (b) => b.createdAt],
        ],
        items,
      ),
    );
  }

  button.addEventListener('click', () => {
    button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    outcome.textContent = 'verifying…';
    outcome.className = '';
    stream(
      '/v1/operator/ledger/verify',
      (event, data) => {
        if (event === 'start') bar.max = Math.max(1, data.height);
        if (event === 'progress') bar.value = data.blocks;
        if (event === 'error') error.textContent = data.message;
        if (event === 'result') {
          bar.value = bar.max;
          outcome.className = data.ok ? 'ok' : 'error';
          outcome.textContent = data.ok
            ? `OK: ${data.blocks} blocks, ${data.entries} entries; head ${data.head ?? '(empty)'}`
            : `FAILED at block ${data.bad.height}: ${data.bad.reason}`;
        }
      },
      running.signal,
    )
      .catch((err) => {
        if (err.name !== 'AbortError') error.textContent = err.message;
      })
      .finally(() => (button.disabled = false));
  });

  el.append(h('h1', {}, 'Ledger'), error, state, h('div', { class: 'row' }, button, bar), outcome, blocks);
  load().catch((err) => (error.textContent = err.message));
  return () => running.abort();
}
