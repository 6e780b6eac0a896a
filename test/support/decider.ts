import { recordFact, type ActorContext, type ActorDefinition, type Decision } from '../../src/actors/runtime/types.js';

/**
 * Drives one actor's pure `decide` as the runtime does, with no I/O: its state and facts kept
 * between messages (a refused message changes neither; a decision's facts are written, null
 * deleting one), each message given only the facts its definition names (FactsPolicy.needs), and
 * a JSON round trip of the state, as a snapshot would store it. Its tallies are what the test
 * puts in `tallies` (other actors write them).
 */
export function decider<S, M extends { kind: string }>(
  def: ActorDefinition<S, M>,
  opts: { key?: string; now?: () => Date } = {},
) {
  const facts = new Map<string, unknown>();
  /** This actor's tallies as other actors' commits would have left them (a test sets them). */
  const tallies: Record<string, string> = {};
  let state: S | undefined;
  let n = 0;
  const ctxFor = (msg: M): ActorContext => {
    const msgId = `${++n}-0`;
    const visible = new Set(def.facts?.needs(msg, opts.key ?? 'k') ?? []);
    return {
      type: def.type,
      key: opts.key ?? 'k',
      msgId,
      now: opts.now?.() ?? new Date('2026-11-27T10:00:00Z'),
      id: (i = 0) => `${msgId}:${i}`,
      fact: (id) => (visible.has(id) ? facts.get(id) : undefined),
      tallies: () => tallies,
    };
  };
  return {
    facts,
    tallies,
    get state(): S | undefined {
      return state;
    },
    /** Applies a message (parsed by the actor's schema); the decision is returned. */
    send(raw: M): Decision<S> {
      const msg = def.messages.parse(raw);
      const d = def.decide(state, msg, ctxFor(msg));
      if (d.rejection) return d;
      state = d.state === undefined ? undefined : (JSON.parse(JSON.stringify(d.state)) as S);
      for (const f of d.facts ?? []) {
        if (f.body === null || f.body === undefined) facts.delete(f.id);
        else facts.set(f.id, JSON.parse(JSON.stringify(f.body)) as unknown);
      }
      // Its records, as the runtime reads them back (types.ts, recordFact).
      for (const r of d.records ?? [])
        facts.set(recordFact(r.kind, r.id), JSON.parse(JSON.stringify(r.body)) as unknown);
      return d;
    },
  };
}
