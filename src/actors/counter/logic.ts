import { reject, type Decision } from '../runtime/types.js';
import type { CounterMessage, CounterState } from './messages.js';

const zero: CounterState = { count: 0, applied: 0, lastSeq: 0, outOfOrder: 0 };

/** A counter's decisions: add (noting a sequence number out of order), read, or refuse on request. */
export function decideCounter(state: CounterState | undefined, msg: CounterMessage): Decision<CounterState> {
  const s = state ?? zero;
  switch (msg.kind) {
    case 'get':
      return { state, reply: s };
    case 'fail':
      return { state, rejection: reject('VALIDATION_FAILED', 'this counter refuses on request') };
    case 'add': {
      const inOrder = msg.seq === undefined || msg.seq === s.lastSeq + 1;
      const next: CounterState = {
        count: s.count + msg.by,
        applied: s.applied + 1,
        lastSeq: msg.seq ?? s.lastSeq,
        outOfOrder: s.outOfOrder + (inOrder ? 0 : 1),
      };
      return {
        state: next,
        reply: next,
        effects: [{ topic: 'counter.added', payload: { by: msg.by, count: next.count } }],
      };
    }
  }
}
