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
  /** The aggregator's end-of-session status, once its report has come (POST /api/ussd/events). */
  outcome?: string;
}

/** What a hop answers the gateway. */
export type HopReply =
  | { kind: 'screen'; text: string; end: boolean; state: string; startedAt: string }
  | { kind: 'work'; intentId: string; intent: Intent; state: string };

/**
 * What a close (the aggregator's end-of-session report) answers: whether the session was known,
 * whether this was its first report (a retried report is not counted twice), and its phone.
 */
export type CloseReply = { known: false } | { known: true; first: boolean; phoneNumber: string; serviceCode: string };
