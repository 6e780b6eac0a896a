import { api } from './api.js';
import { duration, h, table } from './dom.js';
import { poll } from './poll.js';

export function mount(el) {
  const error = h('p', { class: 'error' });
  const body = h('div');
  el.append(h('h1', {}, 'Actors'), error, body);
  return poll(
    async () => {
      const t = await api('/v1/operator/actors');
      body.replaceChildren(
        h('h2', {}, `Workers (${t.workers.length})`),
        table(
          [
            ['worker', (w) => w.id],
            ['last heartbeat', (w) => `${duration(w.heartbeatAgeMs)} ago`, { num: true }],
          ],
          t.workers,
        ),
        ...t.types.map(({ type, partitions }) => {
          const sum = (f) => partitions.reduce((a, p) => a + p[f], 0);
          return h(
            'section',
            { 'data-type': type },
            h(
              'h2',
              {},
              `${type}: ${partitions.length} partitions, lag ${sum('lag')}, pending ${sum('pending')}, dead letters ${sum('deadLetters')}`,
            ),
            table(
              [
                ['partition', (p) => p.partition, { num: true }],
                ['owner', (p) => p.owner ?? 'none'],
                ['lease left', (p) => duration(p.leaseMs), { num: true }],
                ['epoch', (p) => p.epoch, { num: true }],
                ['mailbox', (p) => p.mailbox, { num: true }],
                ['lag', (p) => p.lag, { num: true }],
                ['pending', (p) => p.pending, { num: true }],
                ['oldest pending', (p) => duration(p.oldestPendingMs), { num: true }],
                ['dead letters', (p) => p.deadLetters, { num: true }],
              ],
              partitions,
              (p) => ({ class: p.owner === null || p.deadLetters > 0 || p.lag > 100 ? 'warn' : undefined }),
            ),
          );
        }),
      );
    },
    5_000,
    error,
  );
}
