import { withTimeout } from '../../common/with-timeout.js';
import { hashSlot } from './hash-slot.js';
import { bellOf, mailboxOfBell } from './keys.js';
import { createNodeConnection, type Cluster, type Redis } from './redis.js';

/** What a worker makes of its bells (mailbox-unread.ts). */
export interface BellListener {
  /** A mailbox's bell rang with this message; whether the worker should wake for it. */
  ring(mailbox: string, message: string): boolean;
  /** Bells may have been missed (a listener just heard, or back after an outage): read everything. */
  everything(): void;
}

/**
 * What wakes a worker on a Redis Cluster when its mailboxes get entries. No blocking read can
 * cover them there: each partition's mailbox is in a slot of its own, and Redis refuses a read
 * over two slots. So every writer that adds entries to a mailbox on a cluster also rings its
 * bell, a shard pub/sub channel in the mailbox's slot (`SPUBLISH <mailbox>:bell <newest id>`,
 * after the entries; `1` from an outbox tell, which does not wait for its id), and the worker
 * listens on one connection per node to the bells of the partitions it owns there.
 *
 * A bell is a hint, never the message: the worker reads the mailboxes themselves when one rings
 * of entries it has not read (mailbox-unread.ts), and every mailbox once per block time without
 * one, so an entry whose bell was lost (a writer gone before it rang, a listener reconnecting, a
 * slot that moved before the listener followed it) waits at most that long.
 *
 * It replaced a blocking read per partition on a connection of its own, ended for every partition
 * by CLIENT UNBLOCK when one had entries (16 connections and 19 writes per wait at 16
 * partitions), and a 1 ms grace timer between reads under load, which was most of a round's time:
 * 1 ms of each 2.3 ms round at 64 echo askers on 3 masters.
 */
export class MailboxBells {
  /** One listening connection per node, and the bells it listens to. */
  private readonly listeners = new Map<string, Listener>();
  /** Each bell's slot (computed once: follow() runs before every read). */
  private readonly slotOf = new Map<string, number>();
  /** Where each bell is listened to. */
  private readonly nodeOf = new Map<string, string>();
  private interrupted = false;
  private wake: ((why: 'rang' | 'interrupted') => void) | undefined;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly name: string,
    private readonly listener: BellListener,
  ) {}

  /**
   * Listens to the bells of these mailboxes, each on the node its slot is on now, and to no
   * others. New ones are listened to in the background (a node that does not answer must not hold
   * the worker's reads), and once heard every mailbox is read: entries may have come before.
   */
  follow(mailboxes: readonly string[]): void {
    if (this.closed) return;
    const wanted = new Map<string, string>();
    for (const m of mailboxes) {
      const bell = bellOf(m);
      let slot = this.slotOf.get(bell);
      if (slot === undefined) this.slotOf.set(bell, (slot = hashSlot(bell)));
      const node = this.cluster.slots[slot]?.[0];
      if (node !== undefined) wanted.set(bell, node);
    }
    for (const [bell, node] of this.nodeOf) if (wanted.get(bell) !== node) this.unlisten(bell, node);
    for (const [bell, node] of wanted) if (!this.nodeOf.has(bell)) void this.listen(bell, node);
  }

  /**
   * Resolves when a bell rings that the worker wakes for (`rang`), after `ms` (`timeout`), or when
   * interrupted, during the wait or since the last one (an interrupt that comes while the worker
   * reads is not lost). The caller checks what is due before it waits: the bells it heard while it
   * read are not kept here.
   */
  async wait(ms: number): Promise<'rang' | 'timeout' | 'interrupted'> {
    const interrupted = this.interrupted;
    this.interrupted = false;
    if (interrupted || this.closed) return 'interrupted';
    let timer: NodeJS.Timeout | undefined;
    const why = await new Promise<'rang' | 'timeout' | 'interrupted'>((resolve) => {
      // Forgotten as it resolves: an interrupt after it, before the worker reads again, is kept.
      const end = (w: 'rang' | 'timeout' | 'interrupted') => {
        this.wake = undefined;
        resolve(w);
      };
      this.wake = end;
      timer = setTimeout(() => end('timeout'), ms);
    });
    clearTimeout(timer);
    return why;
  }

  /** Ends a wait now, or the next one at once (a new partition, a stop). */
  interrupt(): void {
    if (this.wake) this.wake('interrupted');
    else this.interrupted = true;
  }

  close(): void {
    this.closed = true;
    for (const { conn } of this.listeners.values()) conn.disconnect();
    this.listeners.clear();
    this.nodeOf.clear();
    this.wake?.('interrupted');
  }

  private wakeUp(): void {
    this.wake?.('rang');
  }

  /** Bells may have been missed: every mailbox is read, now. */
  private missed(): void {
    this.listener.everything();
    this.wakeUp();
  }

  private async listen(bell: string, node: string): Promise<void> {
    this.nodeOf.set(bell, node);
    try {
      const listener = await this.listenerOn(node);
      // Given up meanwhile (the partition left, or its slot moved): nothing to listen to here.
      if (this.nodeOf.get(bell) !== node) return;
      listener.bells.add(bell);
      await withTimeout(listener.conn.ssubscribe(bell), LISTEN_TIMEOUT_MS, listenLate);
    } catch {
      // The slot moved before the map knew (MOVED), or the node is gone or silent: listened to
      // again at a later read, once the map has been asked again. Until then the block time
      // bounds the wait.
      if (this.nodeOf.get(bell) === node) this.unlisten(bell, node);
      this.cluster.refreshSlotsCache();
    }
    this.missed();
  }

  private unlisten(bell: string, node: string): void {
    this.nodeOf.delete(bell);
    const listener = this.listeners.get(node);
    if (!listener) return;
    listener.bells.delete(bell);
    if (listener.bells.size === 0) {
      listener.conn.disconnect();
      this.listeners.delete(node);
    } else listener.conn.sunsubscribe(bell).catch(() => undefined);
  }

  private async listenerOn(node: string): Promise<Listener> {
    let listener = this.listeners.get(node);
    if (!listener) {
      const conn = createNodeConnection(this.cluster, node, `${this.name}:bells`);
      const made: Listener = { conn, bells: new Set(), connected: conn.connect() };
      this.listeners.set(node, made);
      conn.on('smessage', (bell: string, message: string) => {
        if (this.listener.ring(mailboxOfBell(bell), message)) this.wakeUp();
      });
      conn.on('error', () => undefined); // reads report outages; a listener only reconnects
      // Back after an outage: listen again (ioredis's own resubscription is off, so that the read
      // comes after it), and read everything: entries may have come while it was away.
      conn.on('ready', () => {
        if (made.bells.size === 0) return;
        Promise.all([...made.bells].map((b) => conn.ssubscribe(b)))
          .catch(() => undefined)
          .finally(() => this.missed());
      });
      made.connected.catch(() => {
        if (this.listeners.get(node) === made) this.listeners.delete(node);
        conn.disconnect();
      });
      listener = made;
    }
    await withTimeout(listener.connected, LISTEN_TIMEOUT_MS, listenLate);
    if (this.closed) {
      listener.conn.disconnect();
      throw new Error('bells closed');
    }
    return listener;
  }
}

/** How long a listener's connection or subscription may take before it is given up (and retried). */
const LISTEN_TIMEOUT_MS = 2_000;
const listenLate = () => new Error(`no answer within ${LISTEN_TIMEOUT_MS} ms`);

interface Listener {
  conn: Redis;
  bells: Set<string>;
  /** Its first connection: bells are listened to once it is up. */
  connected: Promise<void>;
}
