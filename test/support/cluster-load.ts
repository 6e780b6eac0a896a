import type { CounterState } from '../../src/actors/counter/index.js';
import type { ActorClient } from '../../src/store/redis/actor-client.js';

/**
 * Load for the failover and resharding tests: `askers` loops, each asking one `add` of a counter
 * key of its own per message (`<name>-<asker>-<n>`), one ask at a time, and recording which were
 * answered. A key per message makes the count exact: a key whose counter applied 0 adds although
 * its ask was answered is a lost message, one that applied 2 a doubled one.
 */
export interface Load {
  /** Stops the askers; what they sent and what was answered. */
  stop(): Promise<LoadOutcome>;
  /** Answered asks so far. */
  readonly acked: number;
  /** Time (Date.now()) of the last failed ask, if any. */
  readonly lastFailureAt: number | undefined;
  /** Time (Date.now()) of the last answered ask, if any. */
  readonly lastAckedAt: number | undefined;
}

export interface LoadOutcome {
  sent: string[];
  acked: Set<string>;
  failed: number;
  lastFailureAt: number | undefined;
  /** Time (Date.now()) of each answered ask, in order. */
  ackedAt: number[];
}

export function startLoad(client: ActorClient, name: string, askers: number): Load {
  let running = true;
  const sent: string[] = [];
  const acked = new Set<string>();
  const ackedAt: number[] = [];
  let failed = 0;
  let lastFailureAt: number | undefined;
  const loops = Array.from({ length: askers }, async (_, a) => {
    for (let n = 0; running; n++) {
      const key = `${name}-${a}-${n}`;
      sent.push(key);
      try {
        await client.ask('counter', key, { kind: 'add', by: 1 });
        acked.add(key);
        ackedAt.push(Date.now());
      } catch {
        failed++;
        lastFailureAt = Date.now();
        // Not sent again: a real client would retry with its idempotency key; here the
        // unanswered message may or may not have been applied, and either is allowed.
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
  return {
    get acked() {
      return acked.size;
    },
    get lastFailureAt() {
      return lastFailureAt;
    },
    get lastAckedAt() {
      return ackedAt.at(-1);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      return { sent, acked, failed, lastFailureAt, ackedAt };
    },
  };
}

/** How the sent messages were applied, read back from each key's counter (asks retried until answered). */
export async function tally(
  client: ActorClient,
  outcome: LoadOutcome,
): Promise<{ acked: number; lost: number; doubled: number; appliedUnanswered: number }> {
  let lost = 0;
  let doubled = 0;
  let appliedUnanswered = 0;
  for (let i = 0; i < outcome.sent.length; i += 200) {
    const keys = outcome.sent.slice(i, i + 200);
    const states = await Promise.all(keys.map((k) => askUntilAnswered(client, k)));
    keys.forEach((k, j) => {
      const applied = states[j]!.applied;
      if (applied > 1) doubled++;
      if (outcome.acked.has(k) && applied === 0) lost++;
      if (!outcome.acked.has(k) && applied === 1) appliedUnanswered++;
    });
  }
  return { acked: outcome.acked.size, lost, doubled, appliedUnanswered };
}

async function askUntilAnswered(client: ActorClient, key: string): Promise<CounterState> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.ask<CounterState>('counter', key, { kind: 'get' });
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
