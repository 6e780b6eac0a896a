import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../../log.js';
import { StartupError } from '../../errors/index.js';
import { parseRedisTarget, redactRedisUrl } from '../../common/redis-target.js';

export type { Redis, Cluster };

/** A connection to one Redis or to a Redis Cluster: the same commands, the same code path. */
export type RedisClient = Redis | Cluster;

export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

interface ConnectionOptions {
  /** Holds blocking reads (XREAD BLOCK): no command timeout, no auto-pipelining. */
  blocking?: boolean;
  log?: Logger;
}

/**
 * The options of every connection to one Redis server (of a cluster's nodes too), fail-fast
 * while disconnected: a request during an outage gets a 503 at once instead of hanging, and the
 * connection comes back in the background with capped back-off.
 */
function serverOptions(name: string, blocking: boolean): RedisOptions {
  return {
    connectionName: name,
    maxRetriesPerRequest: 0,
    // A command whose reply was lost is never sent again: a resent XADD would post a message
    // twice, a resent XREADGROUP would hide the first batch in the pending list.
    autoResendUnfulfilledCommands: false,
    // A blackholed connection fails commands after 2 s instead of hanging (not for blocking reads).
    ...(blocking ? {} : { commandTimeout: 2_000 }),
    connectTimeout: 3_000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
  };
}

/**
 * Commands issued in the same tick (many partitions settling at once) go out in one write. Not
 * on a blocking connection: it carries one read at a time, which auto-pipelining would hold until
 * the event loop's check phase and wrap in a pipeline of one. Scripts are the runtime's own
 * batches (a round's settles, a turn's mailbox writes), sent when they are complete: held for the
 * check phase, a round's replies waited behind the worker's next read, and a gateway's asks for a
 * second turn of its event loop.
 */
function pipelining(blocking: boolean): Pick<RedisOptions, 'enableAutoPipelining' | 'autoPipeliningIgnoredCommands'> {
  return {
    enableAutoPipelining: !blocking,
    // XGROUP and XINFO too: ioredis finds no key in them (the key follows a subcommand), so on a
    // cluster its auto-pipeline grouped them by the slot of "CREATE" or "GROUPS" and sent them to
    // a node that answered MOVED, which it does not follow inside a batch of other commands (a
    // worker's rounds failed at start with MOVED, seen in the cluster tests). Alone, a MOVED is
    // followed.
    autoPipeliningIgnoredCommands: ['evalsha', 'eval', 'xgroup', 'xinfo'],
  };
}

/** A connection to what `url` names (see redis-target.ts), not yet connected: {@link connectRedis}. */
export function createRedis(url: string, name: string, opts: ConnectionOptions = {}): RedisClient {
  const target = parseRedisTarget(url);
  const blocking = opts.blocking ?? false;
  let client: RedisClient;
  if (target.kind === 'single') {
    client = new Redis(url, {
      ...serverOptions(name, blocking),
      ...pipelining(blocking),
      enableOfflineQueue: false,
      lazyConnect: true,
    });
  } else {
    client = new Cluster(target.nodes, {
      ...pipelining(blocking),
      // Fail fast while the cluster as a whole is unreachable, as one Redis does.
      enableOfflineQueue: false,
      lazyConnect: true,
      scaleReads: 'master',
      clusterRetryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
      // No command is sent again later, behind commands sent after it: ioredis would resend one
      // refused by a connection not ready (a node's first, or its master gone) or answered
      // CLUSTERDOWN a moment later, and one mailbox's entries would land out of order (seen:
      // a turn's writes to a node still connecting landed 100 ms after the next turn's). They
      // fail instead, as on one Redis: the asker gets a 503 and retries with its idempotency
      // key. MOVED and ASK are followed at once, in the order the answers come. TRYAGAIN only
      // answers a command over several keys while their slot moves: none of those is a mailbox
      // write.
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: 2_000,
      // A promoted replica is found within 2 s of its promotion, not ioredis's default 5 s.
      slotsRefreshInterval: 2_000,
      redisOptions: {
        ...serverOptions(name, blocking),
        username: target.username,
        password: target.password,
        ...(target.tls ? { tls: {} } : {}),
      },
    });
  }
  if (isCluster(client) && !blocking) keepNodesConnected(client);
  if (opts.log) reportOutages(client, name, opts.log);
  return client;
}

/**
 * ioredis connects to a node at its first command, and refuses the commands that follow while
 * that connection is being made (see retryDelayOnFailover above): once the cluster is ready,
 * every node it names (replicas too, which a failover promotes) is connected, and a node that
 * joins later as soon as it is known. (Not before ready: ioredis's own ready check would be
 * refused by a node still connecting.)
 */
function keepNodesConnected(cluster: Cluster): void {
  const connect = (node: Redis) => {
    if (node.status === 'wait') node.connect().catch(() => undefined);
  };
  cluster.on('ready', () => cluster.nodes('all').forEach(connect));
  cluster.on('+node', (node: Redis) =>
    setImmediate(() => {
      if (cluster.status === 'ready') connect(node);
    }),
  );
}

/**
 * A connection of its own to one node of a cluster (a worker's listener for its mailboxes'
 * bells, mailbox-bells.ts), with the cluster's credentials and TLS. It resubscribes itself.
 */
export function createNodeConnection(cluster: Cluster, node: string, name: string): Redis {
  const colon = node.lastIndexOf(':');
  const { redisOptions } = cluster.options;
  return new Redis({
    ...redisOptions,
    ...serverOptions(name, true),
    // The cluster's own options time commands out; a blocking read must not be.
    commandTimeout: undefined,
    host: node.slice(0, colon),
    port: Number(node.slice(colon + 1)),
    enableOfflineQueue: false,
    enableAutoPipelining: false,
    autoResubscribe: false,
    lazyConnect: true,
  });
}

/**
 * Redis outages in the JSON log, instead of ioredis's own "[ioredis] Unhandled error event" on
 * stderr at every reconnection attempt (a line every 2 s per connection, outside the JSON logs):
 * one warn line when a connection that was up is lost (a reset, or a clean close such as
 * `CLIENT KILL`), one more whenever the cause changes while it stays down (a password changed,
 * `max number of clients`, `LOADING`), and one info line when it is back. A connection that has
 * never been up says so once per cause, too (a worker's reading connections connect in the
 * background). The commands that fail meanwhile are reported where they fail, with their context.
 */
function reportOutages(redis: RedisClient, name: string, log: Logger): void {
  if (isCluster(redis)) reportNodeErrors(redis, name, log);
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let lastError: string | undefined;
  let reported: string | undefined;
  redis.on('error', (err: Error) => {
    lastError = err.message;
    // While up, the 'reconnecting' that follows reports the loss with this cause.
    if (state === 'up' || reported === err.message) return;
    reported = err.message;
    const what = state === 'down' ? 'Redis still unreachable' : 'Redis not reachable yet; retrying';
    log.warn({ connection: name, err: err.message }, what);
  });
  redis.on('reconnecting', () => {
    if (state !== 'up') return;
    state = 'down';
    reported = lastError;
    log.warn({ connection: name, err: lastError ?? 'connection closed' }, 'Redis connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (state === 'down') log.info({ connection: name }, 'Redis connection back');
    state = 'up';
    lastError = undefined;
    reported = undefined;
  });
}

/**
 * A cluster stays up while one of its nodes is down (a master killed, until its replica takes
 * over): one warn line per node and cause, one info line when the topology changes back.
 */
function reportNodeErrors(cluster: Cluster, name: string, log: Logger): void {
  const reported = new Map<string, string>();
  cluster.on('node error', (err: Error, node: string) => {
    if (reported.get(node) === err.message) return;
    reported.set(node, err.message);
    log.warn({ connection: name, node, err: err.message }, 'Redis Cluster node unreachable');
  });
  cluster.on('-node', (_redis: unknown, node: string) => {
    if (reported.delete(node)) log.info({ connection: name, node }, 'Redis Cluster node left the topology');
  });
}

/** Connects, or throws one clear line naming the cause and the remedy. */
export async function connectRedis<C extends RedisClient>(redis: C, url: string): Promise<C> {
  try {
    await redis.connect();
    // On a cluster every master answers first, each on its own connection (queued there until
    // it is made): the cluster refuses commands for a node still connecting (keepNodesConnected).
    if (isCluster(redis)) await Promise.all(redis.nodes('master').map((node) => node.ping()));
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    const cause = err instanceof Error ? err.message : String(err);
    throw new StartupError(
      `Redis connection failed (${cause}): Redis is not running or REDIS_URL (${redactRedisUrl(url)}) does not match; start Redis and correct the variable`,
    );
  }
}
