import type { ActorDefinition } from '../runtime/types.js';
import { installedFlows } from './flows/index.js';
import { ussdDecide } from './logic.js';
import { buildMachine } from './machine.js';
import { ussdMessages, type UssdMessage } from './messages.js';
import { pinMac } from './pin-mac.js';
import { openText } from './sealed-text.js';
import type { UssdSession } from './state.js';

export type { HopReply, UssdSession } from './state.js';
export type { Intent, IntentResult } from './flows/kit.js';
export { sealText } from './sealed-text.js';

/**
 * The USSD session actor, keyed by the aggregator's sessionId. Write-behind: a hop's reply leaves
 * at once and the snapshot follows within `flushMs` (a crash replays the unacknowledged hops).
 */
/** How long an ended or idle USSD session's snapshot is kept (for support questions), ms. */
export const USSD_RETENTION_MS = 24 * 60 * 60 * 1000;

export function ussdSessionActor(opts: {
  pinKey: string;
  idleMs: number;
  flushMs?: number;
}): ActorDefinition<UssdSession, UssdMessage> {
  const machine = buildMachine(installedFlows((pin, c) => pinMac(opts.pinKey, c.phone, pin)));
  return {
    type: 'ussd',
    messages: ussdMessages,
    persistence: { mode: 'write-behind', flushMs: opts.flushMs ?? 100 },
    // Sessions live minutes; their snapshots are kept a day for support questions, then retired.
    retention: { idleMs: USSD_RETENTION_MS },
    decide: ussdDecide({ machine, idleMs: opts.idleMs, open: (sealed) => openText(opts.pinKey, sealed) }),
  };
}
