import type { Logger } from '../../log.js';
import { productKey, type KeyPrefix } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis.js';

/**
 * How the gateways tell each other that a registry record changed, so each may keep what it read
 * for longer than it could without knowing (store/registries/registry.ts). A change is a hint:
 * missed (a listener reconnecting, Redis away), the caches fall back to their short lifetime.
 */
export interface RegistryChanges {
  /** Whether changes are heard now (the listener is subscribed). */
  readonly hearing: boolean;
  /** Says, after the write, that a record of `table` changed: to every process listening. */
  announce(table: string, id: string): Promise<void>;
  /**
   * Calls `changed(id)` for each change of `table` heard (this process's own too), and
   * `changed(undefined)` when some may have been missed (the listener was away).
   */
  watch(table: string, changed: (id: string | undefined) => void): void;
  close(): Promise<void>;
}

/** The pub/sub channel of registry changes: `<prefix>:registry:changes`. */
export const registryChangesChannel = (at: KeyPrefix): string => productKey(at, 'registry', ['changes']);

/** A change on the wire: the table, a tab, the record's id (ids hold no tab: registries' ids are checked). */
const encode = (table: string, id: string): string => `${table}\t${id}`;

/**
 * Registry changes over Redis pub/sub (`PUBLISH`, which a Redis Cluster delivers on every node,
 * so one listening connection to any node hears them). The listener is its own connection
 * (`listener`, not yet connected): a subscribed connection takes no other command. It subscribes
 * itself on every connect, and only once subscribed counts as hearing, having first said that
 * changes may have been missed.
 */
export function redisRegistryChanges(
  publisher: RedisClient,
  listener: RedisClient,
  channel: string,
  log: Logger,
): RegistryChanges {
  const watchers = new Map<string, Array<(id: string | undefined) => void>>();
  let hearing = false;
  let closed = false;
  const everything = () => {
    for (const list of watchers.values()) for (const changed of list) changed(undefined);
  };
  const subscribe = () => {
    if (closed) return;
    listener
      .subscribe(channel)
      .then(() => {
        everything();
        hearing = true;
      })
      .catch((err: unknown) => log.warn({ err: String(err) }, 'registry changes: not subscribed; caches stay short'));
  };
  listener.on('ready', subscribe);
  listener.on('close', () => (hearing = false));
  listener.on('error', () => undefined); // the connection reconnects by itself; outages are logged elsewhere
  listener.on('message', (_channel: string, message: string) => {
    const tab = message.indexOf('\t');
    if (tab < 0) return;
    for (const changed of watchers.get(message.slice(0, tab)) ?? []) changed(message.slice(tab + 1));
  });
  listener.connect().catch(() => undefined); // retried by the connection itself
  return {
    get hearing() {
      return hearing;
    },
    async announce(table, id) {
      try {
        await publisher.publish(channel, encode(table, id));
      } catch (err) {
        // Not heard elsewhere: their copies lapse by their longer lifetime (registry.ts).
        log.warn({ err: String(err), table }, 'registry change not announced');
      }
    },
    watch(table, changed) {
      watchers.set(table, [...(watchers.get(table) ?? []), changed]);
    },
    async close() {
      closed = true;
      hearing = false;
      await listener.quit().catch(() => listener.disconnect());
    },
  };
}
