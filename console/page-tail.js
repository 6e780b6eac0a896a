import { api, stream } from './api.js';
import { h } from './dom.js';

const MAX_LINES = 500;

export function mount(el) {
  const error = h('p', { class: 'error', role: 'alert' });
  const type = h('select', { id: 'tail-type' });
  const partition = h('input', { id: 'tail-partition', type: 'number', min: 0, placeholder: 'all' });
  const key = h('input', { id: 'tail-key', placeholder: 'actor key' });
  const start = h('button', { type: 'submit' }, 'Start');
  const stop = h('button', { type: 'button', disabled: true }, 'Stop');
  const state = h('span', { class: 'muted' });
  const entries = h('div', { id: 'tail-entries' });
  let running;

  function finish(message = 'stopped') {
    running?.abort();
    running = undefined;
    start.disabled = false;
    stop.disabled = true;
    state.textContent = message;
  }

  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: (e) => {
        e.preventDefault();
        finish();
        entries.replaceChildren();
        error.textContent = '';
        const q = new URLSearchParams({ type: type.value });
        if (partition.value !== '') q.set('partition', partition.value);
        if (key.value.trim() !== '') q.set('key', key.value.trim());
        running = new AbortController();
        start.disabled = true;
        stop.disabled = false;
        state.textContent = 'connecting…';
        stream(
          `/v1/operator/tail?${q}`,
          (event, data) => {
            if (event === 'ready')
              state.textContent = `following ${data.type}, partitions ${data.partitions.join(', ')}`;
            if (event === 'error') error.textContent = data.message;
            if (event !== 'entry') return;
            entries.prepend(
              h(
                'div',
                { 'data-entry': data.id },
                `${data.at}  ${data.type}/${data.partition}  ${data.key}  ${data.kind}  ${JSON.stringify(data.body)}`,
              ),
            );
            while (entries.childElementCount > MAX_LINES) entries.lastElementChild.remove();
          },
          running.signal,
        )
          .then(() => finish('ended'))
          .catch((err) => {
            if (err.name !== 'AbortError') error.textContent = err.message;
            finish();
          });
      },
    },
    h('label', {}, 'Actor type', type),
    h('label', {}, 'Partition', partition),
    h('label', {}, 'Key filter', key),
    start,
    stop,
  );
  stop.addEventListener('click', () => finish());
  el.append(
    h('h1', {}, 'Tail'),
    h('p', { class: 'muted' }, 'New mailbox entries as they arrive, newest first (secret fields redacted).'),
    error,
    form,
    state,
    entries,
  );
  api('/v1/operator/actors')
    .then((t) =>
      type.replaceChildren(...t.types.map((x) => h('option', { value: x.type }, `${x.type} (${x.partitions.length})`))),
    )
    .catch((err) => (error.textContent = err.message));
  return () => finish();
}
