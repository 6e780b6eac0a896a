import type { RedisClient } from '../../../store/redis/redis.js';
import type { Keys } from '../../../store/redis/keys.js';
import type { Metrics } from '../../../metrics.js';
import type { LedgerStatus } from '../../../ledger/ledger-reads.js';
import { text } from '../reply.js';
import type { RouteSpec } from '../router.js';

export interface MetricsDeps {
  metrics: Metrics;
  redis: RedisClient;
  keys: Keys;
  /**
   * The partitions whose mailboxes this process reports: those its worker owns now (none on a
   * gateway), so that summing a deployment's series counts each mailbox once.
   */
  owned: () => ReadonlyArray<{ type: string; partition: number }>;
  /** The ledger's state (a worker's scrape only: the writer runs there), read from PostgreSQL. */
  ledger?: () => Promise<LedgerStatus>;
}

/** How long a scrape waits for PostgreSQL's answer about the ledger before it answers without it. */
const LEDGER_READ_MS = 1_000;

async function collectLedger(d: MetricsDeps): Promise<void> {
  if (!d.ledger) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the ledger status did not come within 1 s')), LEDGER_READ_MS);
  });
  try {
    const s = await Promise.race([d.ledger(), late]);
    d.metrics.ledger.set({ measure: 'height' }, s.height);
    d.metrics.ledger.set({ measure: 'queued_entries' }, s.queuedEntries);
    d.metrics.ledger.set({ measure: 'oldest_queued_seconds' }, (s.oldestQueuedMs ?? 0) / 1000);
    d.metrics.ledger.set({ measure: 'pending_anchors' }, s.pendingAnchors);
    d.metrics.ledger.set({ measure: 'failing' }, s.lastError ? 1 : 0);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads each owned mailbox's consumer-group lag (undelivered) plus pending (unacknowledged), and
 * its dead letters. Series of partitions no longer owned go.
 */
async function collectMailboxLag(d: MetricsDeps): Promise<void> {
  const owned = d.owned();
  const dead = await Promise.all(owned.map((o) => d.redis.xlen(d.keys.deadLetter(o.type, o.partition))));
  const deadByType = new Map<string, number>();
  owned.forEach((o, i) => deadByType.set(o.type, (deadByType.get(o.type) ?? 0) + dead[i]!));
  const labels: Array<{ type: string; partition: string }> = [];
  const reads: Array<Promise<[Error | null, unknown]>> = [];
  for (const { type, partition: p } of owned) {
    {
      // Commands of one tick, auto-pipelined (per node on a cluster: a pipeline object there
      // must keep to one slot).
      reads.push(
        d.redis.xinfo('GROUPS', d.keys.mailbox(type, p)).then(
          (groups) => [null, groups],
          (err: unknown) => {
            // No stream yet answers "no such key": nothing waiting. An outage fails the scrape.
            if (err instanceof Error && /no such key/i.test(err.message)) return [err, undefined];
            throw err;
          },
        ),
      );
      labels.push({ type, partition: String(p) });
    }
  }
  const results = await Promise.all(reads);
  d.metrics.mailboxLag.reset();
  d.metrics.deadLetters.reset();
  for (const [type, n] of deadByType) d.metrics.deadLetters.set({ type }, n);
  results.forEach(([err, groups], i) => {
    const label = labels[i];
    if (!label) return;
    if (err) return void d.metrics.mailboxLag.set(label, 0); // no stream yet: nothing waiting
    const group = (groups as unknown[][]).map(toMap).find((g) => g.get('name') === d.keys.group);
    const lag = Number(group?.get('lag') ?? 0) + Number(group?.get('pending') ?? 0);
    d.metrics.mailboxLag.set(label, lag);
  });
}

function toMap(flat: unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) m.set(String(flat[i]), flat[i + 1]);
  return m;
}

/** `GET /metrics`: Prometheus text. The lag gauge is read fresh from Redis on every scrape. */
export function metricsRoute(d: MetricsDeps): RouteSpec {
  return {
    method: 'GET',
    path: '/metrics',
    // Never touches PostgreSQL: served while it is down.
    usesDatabase: false,
    doc: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      tag: 'operations',
      public: true,
      responseType: 'text/plain',
      responses: { 200: 'The Prometheus text exposition format (version 0.0.4)' },
    },
    async handler(ctx) {
      // Redis down: the scrape still answers, with the lag last read (the outage is logged as such).
      await Promise.all([
        collectMailboxLag(d).catch((err: unknown) =>
          ctx.log.debug({ err: err instanceof Error ? err.message : String(err) }, 'mailbox lag not read'),
        ),
        // PostgreSQL down: the ledger's gauges keep their last reading (the outage is logged as such).
        collectLedger(d).catch((err: unknown) =>
          ctx.log.debug({ err: err instanceof Error ? err.message : String(err) }, 'ledger status not read'),
        ),
      ]);
      return text(200, await d.metrics.registry.metrics(), d.metrics.registry.contentType);
    },
  };
}
