import type { FlowContext, Intent } from './flows/kit.js';

/** A machine snapshot as persisted: the state key and the context. */
export interface Persisted {
  value: string;
  context: FlowContext;
}

/** A USSD session actor's state (JSON: it is the snapshot in Postgres). */
export interface UssdSession {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  startedAt: string;
  lastActivityAt: string;
  /** How many inputs of the cumulative text have been applied. */
  consumed: number;
  current: Persisted;
  /** Screens to go back to (`0`), newest last. */
  history: Persisted[];
  /** Page of the current screen (`98` turns it). */
  page: number;
  /** Work the gateway must do before the session can go on. */
  pending: { id: string; intent: Intent } | null;
  ended: boolean;
}

/** What a hop answers the gateway. */
export type HopReply =
  | { kind: 'screen'; text: string; end: boolean; state: string; startedAt: string }
  | { kind: 'work'; intentId: string; intent: Intent; state: string };
