import { assign } from 'xstate';
import { t, type TextKey } from '../catalog/index.js';

/** Who the phone belongs to, looked up when the session starts. */
export type Audience = 'household' | 'supplier' | 'unregistered';

/** What a flow's states read and write (persisted with the snapshot: JSON only). */
export interface FlowContext {
  lang: string;
  /** The session's phone number (it salts the session's PIN hashes). */
  phone: string;
  audience: Audience;
  pinSet: boolean;
  /** A message shown before the next screen (wrong input, wrong PIN), then cleared. */
  notice: string | null;
  /** Scratch values of the flow in progress (the PIN entered first, the voucher id, …). */
  data: Record<string, unknown>;
}

/** Work a flow needs from outside (PIN store, voucher actor, registries); the gateway does it. */
export type Intent =
  | { op: 'setPin'; pinMac: string }
  | { op: 'changePin'; currentMac: string; nextMac: string }
  | { op: 'listVouchers'; pinMac: string }
  | { op: 'listProducts'; voucherId?: string }
  /** A voucher by the code or id a supplier typed: its id and the products it may pay for. */
  | { op: 'findVoucher'; ref: string }
  | { op: 'openSurvey' }
  | { op: 'submitSurvey'; surveyId: string; answers: Record<string, Record<string, string[] | number>> }
  | { op: 'redeem'; pinMac: string; voucherId: string; productId: string; amount: number }
  | { op: 'setLanguage'; lang: string }
  /** A supplier's balances: CARBON available and pending, and the stablecoin. */
  | { op: 'wallet'; pinMac: string }
  /** What converting `amount` CARBON would pay now, and the least the conversion will accept. */
  | { op: 'quoteConversion'; amount: number }
  | { op: 'convert'; pinMac: string; amount: number; minReceive: number };

export type IntentResult = { ok: true; data?: Record<string, unknown> } | { ok: false; reason: string };

export type FlowEvent = { type: 'INPUT'; value: string } | { type: 'RESULT'; result: IntentResult };

/**
 * How a screen reads its input: a menu choice, a number (0 is an answer), a PIN, free text, or
 * none: `end` (the session's END line) and `final` (a result with nothing left to do, such as a
 * balance: END on its last page, the pages before it offering 98 More).
 */
export type ScreenKind = 'menu' | 'number' | 'pin' | 'text' | 'end' | 'final';

export interface ScreenMeta {
  screen?: { kind: ScreenKind; body: (c: FlowContext) => string };
  intent?: (c: FlowContext) => Intent;
}

type Args = { context: FlowContext; event: FlowEvent };

export const valueOf = (e: FlowEvent): string => (e.type === 'INPUT' ? e.value : '');
export const resultOf = (e: FlowEvent): IntentResult | undefined => (e.type === 'RESULT' ? e.result : undefined);

/** A screen state. */
export function screen(
  kind: ScreenKind,
  body: (c: FlowContext) => string,
  on: unknown[] = [],
): Record<string, unknown> {
  return { meta: { screen: { kind, body } } satisfies ScreenMeta, on: { INPUT: [...on, rejectInput] } };
}

/** A state that waits for the gateway to do `intent`, then follows `on` with the RESULT. */
export function work(intent: (c: FlowContext) => Intent, on: unknown[]): Record<string, unknown> {
  return { meta: { intent } satisfies ScreenMeta, on: { RESULT: on } };
}

/** A transition taken when the input is `choice` (a menu number). */
export function choose(choice: string, target: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { guard: ({ event }: Args) => valueOf(event) === choice, target, actions: clearNotice, ...extra };
}

/** A transition taken when `test` accepts the input; `store` keeps it under `data[name]`. */
export function accept(
  test: (value: string, c: FlowContext) => boolean,
  target: string,
  name?: string,
): Record<string, unknown> {
  return {
    guard: ({ event, context }: Args) => test(valueOf(event), context),
    target,
    actions: assign(({ event, context }: Args) => ({
      notice: null,
      data: name ? { ...context.data, [name]: valueOf(event) } : context.data,
    })),
  };
}

/** Sets the notice shown on the next screen. */
export function notice(
  key: TextKey,
  params: (c: FlowContext, e: FlowEvent) => Record<string, string | number> = () => ({}),
) {
  return assign(({ context, event }: Args) => ({ notice: t(context.lang, key, params(context, event)) }));
}

const clearNotice = assign({ notice: null });

/** Any other input: stay, and say so. */
const rejectInput = { actions: notice('common.invalid') };

/** Merges a RESULT's data into the flow's scratch values. */
export const keepResult = assign(({ context, event }: Args) => ({
  notice: null,
  data: { ...context.data, ...(resultOf(event)?.ok ? ((resultOf(event) as { data?: object }).data ?? {}) : {}) },
}));

export const isOk = ({ event }: Args): boolean => resultOf(event)?.ok === true;

/** Ends the session on the generic `done` screen with this text. */
export function endWith(text: (c: FlowContext, e: FlowEvent) => string) {
  return assign(({ context, event }: Args) => ({ notice: null, data: { endText: text(context, event) } }));
}
