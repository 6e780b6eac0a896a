import { describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/actors/runtime/entry-codec.js';
import type { Mailbox, OutgoingReply } from '../../src/actors/runtime/ports.js';

/** What the suite needs of an adapter besides the Mailbox itself (a producer, and a look inside). */
export interface MailboxHarness {
  mailbox(type: string, consumer: string): Mailbox;
  send(type: string, partition: number, key: string): Promise<string>;
  /** A reply stream that exists (as an asking gateway's does); its name. */
  openReplies(name: string): Promise<string>;
  replies(stream: string): Promise<string[]>;
  deadLetters(type: string): Promise<number>;
  /** Lets `ms` of idle time pass for pending entries. */
  idle(ms: number): Promise<void>;
}

export const entryFields = (key: string): string[] =>
  encodeEntry({ key, kind: 'get', body: '{"kind":"get"}', reply: '', corr: '', ts: 0 });

/**
 * The rules every Mailbox keeps, run against each adapter (Redis streams, memory): what the
 * runtime relies on for exactly-once application and per-key order.
 */
export function mailboxSuite(name: string, harness: () => MailboxHarness): void {
  describe(`Mailbox conformance: ${name}`, () => {
    let n = 0;
    const fresh = async (consumers: string[] = ['w1']) => {
      const h = harness();
      const type = `mbx${Date.now().toString(36)}${++n}`;
      const boxes = consumers.map((c) => h.mailbox(type, c));
      for (const b of boxes) {
        await b.open();
        await b.partition(0).ensureGroup();
        await b.partition(1).ensureGroup();
      }
      return { h, type, boxes };
    };
    const ids = (m: Map<number, Array<[string, unknown]>>, p: number) => (m.get(p) ?? []).map(([id]) => id);

    it('delivers new entries once, in id order, at most `count` per partition, pending until acknowledged', async () => {
      const { h, type, boxes } = await fresh();
      const box = boxes[0]!;
      const sent = [
        await h.send(type, 0, 'a'),
        await h.send(type, 1, 'b'),
        await h.send(type, 0, 'c'),
        await h.send(type, 0, 'd'),
      ];
      const cursors = [
        { partition: 0, cursor: '>' },
        { partition: 1, cursor: '>' },
      ];
      const first = await box.read(cursors, 2, undefined);
      expect(ids(first, 0)).toEqual([sent[0], sent[2]]);
      expect(ids(first, 1)).toEqual([sent[1]]);
      expect(first.get(0)![0]![1]).toEqual(entryFields('a'));
      const second = await box.read(cursors, 10, undefined);
      expect(ids(second, 0)).toEqual([sent[3]]);
      expect(second.has(1)).toBe(false);
      // Delivered, not acknowledged: this consumer's pending history, from the start or after an id.
      const history = await box.read([{ partition: 0, cursor: '0' }], 10, undefined);
      expect(ids(history, 0)).toEqual([sent[0], sent[2], sent[3]]);
      expect(ids(await box.read([{ partition: 0, cursor: sent[2]! }], 10, undefined), 0)).toEqual([sent[3]]);
      await box.partition(0).settle([sent[0]!, sent[2]!], [], []);
      expect(ids(await box.read([{ partition: 0, cursor: '0' }], 10, undefined), 0)).toEqual([sent[3]]);
      box.close();
    });

    it('waits for an entry only when every cursor asks for new ones, and an interrupt ends the wait', async () => {
      const { h, type, boxes } = await fresh();
      const box = boxes[0]!;
      const started = Date.now();
      const waiting = box.read([{ partition: 1, cursor: '>' }], 10, 10_000);
      await new Promise((r) => setTimeout(r, 50));
      const id = await h.send(type, 1, 'late');
      expect(ids(await waiting, 1)).toEqual([id]);
      expect(Date.now() - started).toBeLessThan(5_000);

      const again = box.read([{ partition: 0, cursor: '>' }], 10, 10_000);
      await new Promise((r) => setTimeout(r, 50));
      box.interrupt();
      expect((await again).size).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      // A pending-history cursor never waits.
      const history = await box.read([{ partition: 0, cursor: '0' }], 10, 10_000);
      expect(history.size).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      box.close();
    });

    it('hands every pending entry to a new owner and counts each takeover until forgotten', async () => {
      const { h, type, boxes } = await fresh(['old', 'new']);
      const [old, next] = boxes as [Mailbox, Mailbox];
      const sent = [await h.send(type, 0, 'a'), await h.send(type, 0, 'b')];
      await old.read([{ partition: 0, cursor: '>' }], 10, undefined);
      const claimed = await next.partition(0).claimAll();
      expect(claimed).toEqual(sent);
      expect([...(await next.partition(0).countClaims(claimed)).values()]).toEqual([1, 1]);
      expect([...(await next.partition(0).countClaims(claimed)).values()]).toEqual([2, 2]);
      expect(ids(await next.read([{ partition: 0, cursor: '0' }], 10, undefined), 0)).toEqual(sent);
      expect((await old.read([{ partition: 0, cursor: '0' }], 10, undefined)).size).toBe(0);
      await next.partition(0).forgetClaims([sent[0]!]);
      expect([...(await next.partition(0).countClaims(claimed)).values()]).toEqual([1, 3]);
      old.close();
      next.close();
    });

    it('takes back, marked stranded, only what another consumer has held idle for long enough', async () => {
      const { h, type, boxes } = await fresh(['paused', 'owner']);
      const [paused, owner] = boxes as [Mailbox, Mailbox];
      const id = await h.send(type, 0, 'a');
      await paused.read([{ partition: 0, cursor: '>' }], 10, undefined);
      expect(await owner.partition(0).claimStranded(60_000)).toEqual([]);
      await h.idle(80);
      expect(await owner.partition(0).claimStranded(50)).toEqual([id]);
      expect(await owner.partition(0).strandedAmong([id, '1-1'])).toEqual([id]);
      expect(ids(await owner.read([{ partition: 0, cursor: '0' }], 10, undefined), 0)).toEqual([id]);
      await owner.partition(0).unmarkStranded([id]);
      expect(await owner.partition(0).strandedAmong([id])).toEqual([]);
      paused.close();
      owner.close();
    });

    it('settles: acknowledges, replies to open reply streams, and dead-letters with the acknowledgement', async () => {
      const { h, type, boxes } = await fresh();
      const box = boxes[0]!;
      const stream = await h.openReplies(`${type}-replies`);
      const [a, b, c] = [await h.send(type, 0, 'a'), await h.send(type, 0, 'b'), await h.send(type, 1, 'c')];
      await box.read(
        [
          { partition: 0, cursor: '>' },
          { partition: 1, cursor: '>' },
        ],
        10,
        undefined,
      );
      const reply = (corr: string): OutgoingReply => ({ stream, corr, ok: true, body: '{}' });
      const poison = { entry: { id: b, key: 'b', kind: 'get', body: '{}', reply: '', corr: '', ts: 0 }, error: 'bad' };
      expect(await box.partition(0).settle([a, b], [reply('ra')], [poison])).toBe(0);
      expect(await box.settleMany([{ partition: 1, ids: [c], replies: [reply('rc')] }])).toBe(0);
      expect(await h.replies(stream)).toEqual(['ra', 'rc']);
      expect(await h.deadLetters(type)).toBe(1);
      const pending = await box.read(
        [
          { partition: 0, cursor: '0' },
          { partition: 1, cursor: '0' },
        ],
        10,
        undefined,
      );
      expect(pending.size).toBe(0);
      box.close();
    });

    it('never trims an entry still pending or not yet delivered', async () => {
      const { h, type, boxes } = await fresh();
      const box = boxes[0]!;
      const sent = [await h.send(type, 0, 'a'), await h.send(type, 0, 'b'), await h.send(type, 0, 'c')];
      await box.read([{ partition: 0, cursor: '>' }], 2, undefined);
      await box.partition(0).settle([sent[0]!], [], []);
      await box.partition(0).trim();
      expect(ids(await box.read([{ partition: 0, cursor: '0' }], 10, undefined), 0)).toEqual([sent[1]]);
      expect(ids(await box.read([{ partition: 0, cursor: '>' }], 10, undefined), 0)).toEqual([sent[2]]);
      box.close();
    });
  });
}
