import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerOnThread } from '../../../src/ledger/ledger-on-thread.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';
import { enqueueSurveyEntries, unchainedEntries } from '../../support/ledger-records.js';

/** The ledger writer of a worker process, on a thread of its own (src/ledger/ledger-on-thread.ts). */
describe('ledger: the writer on its own thread', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  const enqueue = (from: number, n: number) => enqueueSurveyEntries(env.sql, from, n, 5);

  const head = async () =>
    (await env.sql<{ lease_owner: string | null; height: string }[]>`SELECT lease_owner, height FROM ledger_head`)[0];

  it('chains the entries into a verified journal, holds the lease, and gives it up on close', async () => {
    await enqueue(0, 1_234);
    const ledger = await startLedgerOnThread(env.config({ LEDGER_BATCH_MS: '20', LEDGER_BATCH_SIZE: '100' }), {
      log: env.log,
      ownerId: 'ledger-thread-test',
    });
    try {
      await eventually(
        () => unchainedEntries(env.sql),
        (n) => n === 0,
      );
      expect((await head())?.lease_owner).toBe('ledger-thread-test');
      expect(await verifyJournal(env.sql)).toMatchObject({ ok: true, entries: 1_234, blocks: 13 });
      // Still writing: entries made later are chained too.
      await enqueue(5_000, 7);
      await eventually(
        () => unchainedEntries(env.sql),
        (n) => n === 0,
      );
    } finally {
      await ledger.close();
    }
    expect((await head())?.lease_owner).toBeNull();
    // Closed means stopped: nothing more is chained.
    const height = (await head())?.height;
    await enqueue(9_000, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await unchainedEntries(env.sql)).toBe(3);
    expect((await head())?.height).toBe(height);
  });

  it('starts a thread that died again, under the same owner, and chains what came meanwhile', async () => {
    const threads: Worker[] = [];
    const ledger = await startLedgerOnThread(env.config({ LEDGER_BATCH_MS: '20', LEDGER_BATCH_SIZE: '100' }), {
      log: env.log,
      ownerId: 'ledger-thread-restart',
      onThread: (t) => threads.push(t),
    });
    try {
      await eventually(
        () => unchainedEntries(env.sql),
        (n) => n === 0,
      );
      expect(threads).toHaveLength(1);
      // The thread dies without closing its writer (its lease stays held until the new thread takes it).
      await threads[0]!.terminate();
      await enqueue(20_000, 250);
      expect(
        await eventually(
          () => unchainedEntries(env.sql),
          (n) => n === 0,
          10_000,
        ),
      ).toBe(0);
      expect(threads).toHaveLength(2);
      expect((await head())?.lease_owner).toBe('ledger-thread-restart');
      expect(await verifyJournal(env.sql)).toMatchObject({ ok: true });
    } finally {
      await ledger.close();
    }
    expect((await head())?.lease_owner).toBeNull();
  });

  it('refuses to start as the writer in-process would, with its reason', async () => {
    const config = env.config({
      LEDGER_BACKEND: 'cosmos',
      LEDGER_MNEMONIC: Array.from({ length: 12 }, () => 'notaword').join(' '),
    });
    await expect(startLedgerOnThread(config, { log: env.log, ownerId: 'ledger-thread-bad' })).rejects.toThrow(
      /mnemonic|word/i,
    );
  });
});
