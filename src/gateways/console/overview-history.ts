import type { Metrics } from '../../metrics.js';

/** One reading of this gateway, every SAMPLE_MS: rates over the interval before it. */
export interface OverviewSample {
  /** ISO time of the reading. */
  at: string;
  /** Requests per second by route family (`/v1/vouchers`, `/api/ussd`, `/health`…). */
  requestsPerSecond: Record<string, number>;
  /**
   * The 99th percentile of the interval's request durations per route family, in ms: the upper
   * bound of the histogram bucket it falls in (null when above the largest bound, 5 s).
   */
  p99Ms: Record<string, number | null>;
  asksPerSecond: number;
  askTimeoutsPerSecond: number;
  ussdLiveSessions: number | null;
  sseStreams: number;
  sockets: number;
  /** Ledger entries queued for a block; null when the ledger could not be read. */
  ledgerBacklog: number | null;
}

const SAMPLE_MS = 5_000;
/** 15 minutes of readings. */
const KEEP = 180;

interface Totals {
  at: number;
  requests: Map<string, number>;
  /** Family → cumulative count per bucket bound (`le`). */
  buckets: Map<string, Map<number, number>>;
  asks: number;
  timeouts: number;
}

/** `/v1/vouchers/:id` → `/v1/vouchers`; `/api/ussd/events` → `/api/ussd`; `/health` → `/health`. */
export function routeFamily(route: string): string {
  const segments = route.split('/').filter(Boolean);
  const depth = segments[0] === 'v1' || segments[0] === 'api' ? 2 : 1;
  return `/${segments.slice(0, depth).join('/')}`;
}

async function sum(metric: { get(): Promise<{ values: Array<{ value: number }> }> }): Promise<number> {
  return (await metric.get()).values.reduce((a, v) => a + v.value, 0);
}

/**
 * The console's Overview: this gateway's own metrics, read every 5 s and kept 15 minutes, so
 * that the page opens on a chart of the last quarter of an hour rather than an empty one. Rates
 * are this gateway's (a deployment with several behind a balancer shows one's share; Prometheus
 * and the Grafana dashboard under deploy/ sum them all).
 */
/** The PostgreSQL primary this process writes to (`host:port` and its place in DATABASE_URL), or why none. */
export interface PostgresNow {
  primary: string | null;
  position: number | null;
  down: string | null;
}

export class OverviewHistory {
  private readonly samples: OverviewSample[] = [];
  private last: Totals | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly metrics: Metrics,
    private readonly ledgerBacklog: () => Promise<number>,
    private readonly now: () => number = Date.now,
    /** PostgreSQL as this process's watch sees it now: which host is the primary, or why none takes writes. */
    private readonly postgres: () => PostgresNow = () => ({ primary: null, position: null, down: null }),
  ) {}

  start(): this {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The readings, oldest first. */
  history(): { intervalMs: number; samples: OverviewSample[]; postgres: PostgresNow } {
    return { intervalMs: SAMPLE_MS, samples: [...this.samples], postgres: this.postgres() };
  }

  /** Takes a reading now (the timer's; a test calls it to avoid waiting). */
  async sample(): Promise<void> {
    const totals = await this.totals();
    const before = this.last;
    this.last = totals;
    if (!before) return;
    const seconds = Math.max(0.001, (totals.at - before.at) / 1000);
    const rate = (now: number, then: number) => Math.round(((now - then) / seconds) * 100) / 100;
    const requestsPerSecond: Record<string, number> = {};
    for (const [family, n] of totals.requests) requestsPerSecond[family] = rate(n, before.requests.get(family) ?? 0);
    const p99Ms: Record<string, number | null> = {};
    for (const [family, buckets] of totals.buckets) {
      const p99 = percentile(buckets, before.buckets.get(family), 0.99);
      if (p99 !== undefined) p99Ms[family] = p99;
    }
    const [ussd, backlog] = await Promise.all([
      this.metrics.live.ussdSessions?.().catch(() => null) ?? Promise.resolve(null),
      this.ledgerBacklog().catch(() => null),
    ]);
    this.samples.push({
      at: new Date(totals.at).toISOString(),
      requestsPerSecond,
      p99Ms,
      asksPerSecond: rate(totals.asks, before.asks),
      askTimeoutsPerSecond: rate(totals.timeouts, before.timeouts),
      ussdLiveSessions: ussd,
      sseStreams: await sum(this.metrics.streamsOpen),
      sockets: this.metrics.live.sockets?.() ?? 0,
      ledgerBacklog: backlog,
    });
    if (this.samples.length > KEEP) this.samples.shift();
  }

  private async totals(): Promise<Totals> {
    const requests = new Map<string, number>();
    for (const v of (await this.metrics.httpRequests.get()).values) {
      const family = routeFamily(String(v.labels.route ?? ''));
      requests.set(family, (requests.get(family) ?? 0) + v.value);
    }
    const buckets = new Map<string, Map<number, number>>();
    for (const v of (await this.metrics.httpDuration.get()).values) {
      if (v.metricName !== 'hearth_http_request_duration_seconds_bucket') continue;
      const family = routeFamily(String(v.labels.route ?? ''));
      // prom-client types a histogram's values by its own labels; its bucket values carry `le` too.
      const bound = String((v.labels as Record<string, unknown>).le);
      const le = bound === '+Inf' ? Infinity : Number(bound);
      let byLe: Map<number, number> | undefined = buckets.get(family);
      if (!byLe) buckets.set(family, (byLe = new Map<number, number>()));
      byLe.set(le, (byLe.get(le) ?? 0) + v.value);
    }
    return {
      at: this.now(),
      requests,
      buckets,
      asks: await sum(this.metrics.asks),
      timeouts: await sum(this.metrics.asksTimedOut),
    };
  }
}

/**
 * The bucket bound (ms) under which `q` of the interval's observations fall, from two cumulative
 * histograms; undefined when the interval saw none, null when it is above every finite bound.
 */
export function percentile(
  now: ReadonlyMap<number, number>,
  then: ReadonlyMap<number, number> | undefined,
  q: number,
): number | null | undefined {
  const bounds = [...now.keys()].sort((a, b) => a - b);
  const delta = (le: number) => (now.get(le) ?? 0) - (then?.get(le) ?? 0);
  const count = delta(Infinity);
  if (!(count > 0)) return undefined;
  for (const le of bounds) {
    if (delta(le) >= q * count) return Number.isFinite(le) ? Math.round(le * 1000 * 100) / 100 : null;
  }
  return null;
}
