import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Every Prometheus metric hearth exports, on one registry per process (served at /metrics). */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly commitBatchSize: Histogram<'type'>;
  readonly commitDuration: Histogram<'type'>;
  readonly snapshotBytes: Histogram<'type'>;
  readonly asks: Counter<'type'>;
  readonly asksTimedOut: Counter<'type'>;
  readonly deadLettered: Counter<'type'>;
  readonly redeliveriesSkipped: Counter<'type'>;
  readonly mailboxLag: Gauge<'type' | 'partition'>;
  readonly partitionsOwned: Gauge<'type'>;
  readonly deadLetters: Gauge<'type'>;
  readonly ledger: Gauge<'measure'>;
  readonly streamsOpen: Gauge<'route'>;
  /** Where the scrape reads the live gauges of this process (set by the parts that have them). */
  readonly live: {
    sockets?: () => number;
    ussdSessions?: () => Promise<number>;
  };
  readonly actorsRetired: Counter<'type'>;
  readonly ussdUnserved: Counter<'reason'>;
  readonly ussdOutcomes: Counter<'status' | 'service_code' | 'network'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const live: Metrics['live'] = {};
  new Gauge({
    name: 'hearth_sockets_connected',
    help: 'socket.io clients connected to this gateway',
    registers,
    collect() {
      if (live.sockets) this.set(live.sockets());
    },
  });
  new Gauge({
    name: 'hearth_ussd_live_sessions',
    help: 'Live USSD sessions of the deployment (the same on every gateway: take max, not sum)',
    registers,
    async collect() {
      // Redis down: the last reading stays (the scrape still answers).
      if (live.ussdSessions) this.set(await live.ussdSessions().catch(() => Number.NaN));
    },
  });
  // Node's and the process's own: CPU, memory, event-loop lag, GC, handles.
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'hearth_http_requests_total',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'hearth_http_request_duration_seconds',
      help: 'HTTP request latency by route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    commitBatchSize: new Histogram({
      name: 'hearth_commit_batch_size',
      help: 'Messages per group commit',
      labelNames: ['type'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
      registers,
    }),
    // A snapshot must not grow with its actor's history (docs/architecture.md): this shows one that does.
    snapshotBytes: new Histogram({
      name: 'hearth_snapshot_bytes',
      help: 'Size of actor snapshots written, as JSON (one in SNAPSHOT_SAMPLE sampled)',
      labelNames: ['type'],
      buckets: [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576],
      registers,
    }),
    commitDuration: new Histogram({
      name: 'hearth_commit_duration_seconds',
      help: 'Duration of one group commit to PostgreSQL',
      labelNames: ['type'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    asks: new Counter({
      name: 'hearth_asks_total',
      help: 'ask() calls this gateway made, by actor type',
      labelNames: ['type'],
      registers,
    }),
    asksTimedOut: new Counter({
      name: 'hearth_asks_timed_out_total',
      help: 'ask() calls whose deadline passed before a reply',
      labelNames: ['type'],
      registers,
    }),
    deadLettered: new Counter({
      name: 'hearth_dead_lettered_total',
      help: 'Messages moved to the dead-letter stream',
      labelNames: ['type'],
      registers,
    }),
    redeliveriesSkipped: new Counter({
      name: 'hearth_redeliveries_skipped_total',
      help: 'Redelivered messages acknowledged without being applied again (already in the snapshot)',
      labelNames: ['type'],
      registers,
    }),
    mailboxLag: new Gauge({
      name: 'hearth_mailbox_lag',
      help: 'Entries in a partition mailbox not yet delivered to its owner, plus those delivered but not acknowledged',
      labelNames: ['type', 'partition'],
      registers,
    }),
    deadLetters: new Gauge({
      name: 'hearth_dead_letters',
      help: 'Dead letters waiting, per actor type, in the partitions this worker owns (replay or discard: hearth dead-letters)',
      labelNames: ['type'],
      registers,
    }),
    ledger: new Gauge({
      name: 'hearth_ledger',
      help: 'The ledger as a worker reads it at the scrape: height, queued_entries, oldest_queued_seconds, pending_anchors, failing (1 while the writer reports an error)',
      labelNames: ['measure'],
      registers,
    }),
    streamsOpen: new Gauge({
      name: 'hearth_http_streams_open',
      help: 'Streamed responses (SSE) open on this gateway, by route',
      labelNames: ['route'],
      registers,
    }),
    live,
    partitionsOwned: new Gauge({
      name: 'hearth_partitions_owned',
      help: 'Partitions this worker owns',
      labelNames: ['type'],
      registers,
    }),
    actorsRetired: new Counter({
      name: 'hearth_actors_retired_total',
      help: 'Idle actors retired by their retention policy (snapshot deleted through the fence)',
      labelNames: ['type'],
      registers,
    }),
    ussdUnserved: new Counter({
      name: 'hearth_ussd_unserved_total',
      help: 'USSD requests answered with an END line instead of their screen, by reason',
      labelNames: ['reason'],
      registers,
    }),
    ussdOutcomes: new Counter({
      name: 'hearth_ussd_session_outcomes_total',
      help: "USSD sessions' outcomes as the aggregator reports them (POST /api/ussd/events)",
      labelNames: ['status', 'service_code', 'network'],
      registers,
    }),
  };
}
