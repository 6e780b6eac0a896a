import { api } from './api.js';
import { h, table } from './dom.js';
import { poll } from './poll.js';

export function mount(el) {
  const error = h('p', { class: 'error' });
  const body = h('div');
  el.append(h('h1', {}, 'USSD'), error, body);
  return poll(
    async () => {
      const v = await api('/v1/operator/ussd');
      body.replaceChildren(
        h('h2', {}, `Live sessions: ${v.live.count}`),
        table(
          [
            ['phone', (s) => s.phone],
            ['service code', (s) => s.serviceCode],
            ['state', (s) => s.state],
            ['started', (s) => s.startedAt],
            ['last activity', (s) => s.lastActivityAt],
          ],
          v.live.sessions,
          (s) => ({ 'data-session': s.sessionId }),
        ),
        h('h2', {}, 'Session outcomes (this gateway, since it started)'),
        table(
          [
            ['service code', (o) => o.serviceCode],
            ['network', (o) => o.network],
            ['status', (o) => o.status],
            ['sessions', (o) => o.sessions, { num: true }],
          ],
          v.outcomes,
        ),
      );
    },
    5_000,
    error,
  );
}
