import uPlot from './uplot.esm.js';
import { api } from './api.js';
import { h } from './dom.js';
import { poll } from './poll.js';

/** The span every chart shows, in seconds. */
const WINDOW_S = 15 * 60;
const COLORS = ['#b4461b', '#1f6fb4', '#1f7a3d', '#8a3fb4', '#b49a1f', '#444', '#c2185b', '#00838f'];

/** A uPlot line chart of named series over time, redrawn with `update(times, seriesByName)`. */
function chart(parent, title, unit) {
  const box = h('div', { class: 'card' }, h('h2', {}, title));
  parent.append(box);
  let plot;
  let names = [];
  return {
    update(times, byName) {
      const next = Object.keys(byName).sort();
      const data = [times, ...next.map((n) => byName[n])];
      if (!plot || next.join() !== names.join()) {
        plot?.destroy();
        names = next;
        plot = new uPlot(
          {
            width: Math.max(320, box.clientWidth - 24),
            height: 200,
            // Always the last 15 minutes, however few readings there are yet.
            scales: { x: { time: true, range: (_u, _min, max) => [max - WINDOW_S, max] } },
            series: [{}, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 1.5 }))],
            axes: [{}, { label: unit, size: 60 }],
          },
          data,
          box,
        );
      } else {
        plot.setData(data);
      }
    },
    destroy: () => plot?.destroy(),
  };
}

/** Every family seen in any sample, each a series over all samples (null where absent). */
function seriesOf(samples, pick) {
  const names = new Set(samples.flatMap((s) => Object.keys(pick(s))));
  return Object.fromEntries([...names].map((n) => [n, samples.map((s) => pick(s)[n] ?? null)]));
}

function tile(label, value) {
  return h(
    'div',
    { class: 'tile' },
    h('span', { class: 'muted' }, label),
    h('b', { 'data-tile': label }, value ?? '—'),
  );
}

export function mount(el) {
  const error = h('p', { class: 'error' });
  const tiles = h('div', { class: 'tiles' });
  const grid = h('div', { class: 'grid' });
  el.append(
    h('h1', {}, 'Overview'),
    h(
      'p',
      { class: 'muted' },
      "This gateway's readings every 5 s, the last 15 minutes (Prometheus and Grafana sum every gateway).",
    ),
    error,
    tiles,
    grid,
  );
  const charts = {
    requests: chart(grid, 'Requests/s by route family', 'req/s'),
    p99: chart(grid, 'p99 latency by route family', 'ms'),
    asks: chart(grid, 'Actor asks/s and timeouts/s', '/s'),
    live: chart(grid, 'Live: USSD sessions, SSE streams, sockets, ledger backlog', 'count'),
  };
  const stop = poll(
    async () => {
      const { samples, postgres } = await api('/v1/operator/overview');
      const last = samples.at(-1);
      tiles.replaceChildren(
        tile(
          'requests/s',
          last
            ? Object.values(last.requestsPerSecond)
                .reduce((a, b) => a + b, 0)
                .toFixed(1)
            : undefined,
        ),
        tile('asks/s', last?.asksPerSecond),
        tile('ask timeouts/s', last?.askTimeoutsPerSecond),
        tile('live USSD sessions', last?.ussdLiveSessions),
        tile('SSE streams', last?.sseStreams),
        tile('sockets', last?.sockets),
        tile('ledger backlog', last?.ledgerBacklog),
        tile(
          'PostgreSQL primary',
          postgres?.primary
            ? `${postgres.primary}${postgres.position ? ` (host ${postgres.position} of DATABASE_URL)` : ''}`
            : postgres?.down
              ? `none: ${postgres.down}`
              : undefined,
        ),
      );
      el.dataset.samples = String(samples.length);
      if (samples.length === 0) return;
      const times = samples.map((s) => Date.parse(s.at) / 1000);
      charts.requests.update(
        times,
        seriesOf(samples, (s) => s.requestsPerSecond),
      );
      charts.p99.update(
        times,
        seriesOf(samples, (s) => s.p99Ms),
      );
      charts.asks.update(times, {
        asks: samples.map((s) => s.asksPerSecond),
        timeouts: samples.map((s) => s.askTimeoutsPerSecond),
      });
      charts.live.update(times, {
        'USSD sessions': samples.map((s) => s.ussdLiveSessions),
        'SSE streams': samples.map((s) => s.sseStreams),
        sockets: samples.map((s) => s.sockets),
        'ledger backlog': samples.map((s) => s.ledgerBacklog),
      });
    },
    5_000,
    error,
  );
  return () => {
    stop();
    for (const c of Object.values(charts)) c.destroy();
  };
}
