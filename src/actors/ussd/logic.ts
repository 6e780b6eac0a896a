import type { AnyStateMachine } from 'xstate';
import type { ActorContext, Decision } from '../runtime/types.js';
import { catalogs, DEFAULT_LANGUAGE, t } from './catalog/index.js';
import type { FlowContext, ScreenMeta } from './flows/kit.js';
import { NAV, splitInputs } from './input.js';
import type { UssdMessage } from './messages.js';
import { pureTransitions } from './pure-transition.js';
import { paginate, SCREEN_LIMIT } from './screen.js';
import type { CloseReply, HopReply, Persisted, UssdSession } from './state.js';

/** Screens kept for `0` (back). */
const HISTORY = 20;
/** Inputs applied per request at most (a dial-through carries a few; more is abuse). */
const MAX_INPUTS = 30;

export interface UssdLogicOptions {
  machine: AnyStateMachine;
  /** Opens a message's sealed text (undefined: the seal is broken). */
  open: (sealed: string) => string | undefined;
  /** A session idle this long is over (spec: sessions expire). */
  idleMs: number;
}

type Snapshot = ReturnType<AnyStateMachine['resolveState']>;

/**
 * The pure session logic around the flow machine: cumulative text → new inputs, navigation
 * (`0` back, `00` menu, `*` exit, `98` more), paging, idle expiry, and work orders the gateway
 * must carry out (a PIN check, a redemption) before the session goes on.
 */
export function ussdDecide(opts: UssdLogicOptions) {
  const { machine } = opts;
  const steps = pureTransitions(machine);
  const restore = (p: Persisted): Snapshot => machine.resolveState({ value: p.value, context: p.context });
  const persist = (s: Snapshot): Persisted => ({ value: String(s.value), context: s.context as FlowContext });
  // A session's state names are looked up on every hop (several times): once per name is enough,
  // as the machine does not change while the process runs.
  const metas = new Map<string, ScreenMeta | undefined>();
  const lookup = (value: string): ScreenMeta | undefined => {
    if (metas.has(value)) return metas.get(value);
    let meta: ScreenMeta | undefined;
    try {
      meta = (machine.getStateNodeById(`ussd.${value}`).meta ?? {}) as ScreenMeta;
    } catch {
      meta = undefined; // not a state of this machine (any more)
    }
    if (metas.size < 10_000) metas.set(value, meta);
    return meta;
  };
  const known = (value: string): boolean => lookup(value) !== undefined;
  const metaOf = (p: Persisted): ScreenMeta => lookup(p.value) ?? {};

  function home(c: FlowContext): Persisted {
    return { value: 'menu', context: { ...c, notice: null, data: {} } };
  }

  function end(s: UssdSession, text: string): void {
    s.current = { value: 'done', context: { ...s.current.context, notice: null, data: { endText: text } } };
    s.ended = true;
    s.pending = null;
  }

  /** Moves to `next`; records the screen left for `0`; opens a work order if `next` needs one. */
  function enter(s: UssdSession, next: Persisted, ctx: ActorContext, n: number): void {
    const left = s.current;
    // A taken transition moves on (another state, or the same one with new data: the next
    // survey question); a refused input only sets the notice.
    const moved = next.value !== left.value || JSON.stringify(next.context.data) !== JSON.stringify(left.context.data);
    if (moved && metaOf(left).screen) {
      s.history = [...s.history, { value: left.value, context: { ...left.context, notice: null } }].slice(-HISTORY);
    }
    if (moved) s.page = 0;
    s.current = next;
    const intent = metaOf(next).intent;
    if (intent) s.pending = { id: ctx.id(n), intent: intent(next.context) };
    if (metaOf(next).screen?.kind === 'end') s.ended = true;
    endIfLastPage(s);
  }

  /** A final screen (a balance) ends the session on its last page: nothing is left to do. */
  function endIfLastPage(s: UssdSession): void {
    if (metaOf(s.current).screen?.kind === 'final' && s.page >= pagesOf(s).length - 1) s.ended = true;
  }

  function pagesOf(s: UssdSession): string[] {
    const meta = metaOf(s.current).screen;
    if (!meta) return [''];
    const c = s.current.context;
    const body = c.notice ? `${c.notice.trim()}\n${meta.body(c)}` : meta.body(c);
    if (meta.kind === 'end') return [body];
    // A result pages without the navigation footer: its last page is an END line.
    if (meta.kind === 'final') return paginate(body, '', t(c.lang, 'nav.more'));
    // Every screen says how to leave; the main menu has nothing to go back to.
    const footer = t(
      c.lang,
      s.current.value === 'menu' ? 'nav.footerMenu' : meta.kind === 'number' ? 'nav.footerNumber' : 'nav.footer',
    );
    // Where the reply is a number, 98 is an answer, not "more": such a screen is clipped. A PIN
    // is five digits, so a PIN screen pages like any other and its prompt is never cut off.
    if (meta.kind === 'number') return [clip(`${body}\n${footer}`, SCREEN_LIMIT - 4)];
    return paginate(body, footer, t(c.lang, 'nav.more'));
  }

  function applyInput(s: UssdSession, value: string, ctx: ActorContext, n: number): void {
    const kind = metaOf(s.current).screen?.kind;
    if (!kind || kind === 'end') return;
    const c = s.current.context;
    if (value === NAV.exit) return end(s, t(c.lang, 'common.goodbye'));
    if (value === NAV.home) {
      s.history = [];
      s.page = 0;
      s.current = home(c);
      return;
    }
    if (value === NAV.back && kind !== 'number') {
      const previous = s.history.at(-1);
      s.history = s.history.slice(0, -1);
      s.page = 0;
      s.current = previous ? { ...previous, context: { ...previous.context, lang: c.lang } } : home(c);
      return;
    }
    if (value === NAV.more && kind !== 'number' && s.page < pagesOf(s).length - 1) {
      s.page++;
      endIfLastPage(s);
      return;
    }
    const next = steps.next(restore(s.current), { type: 'INPUT', value });
    enter(s, persist(next), ctx, n);
  }

  /**
   * Applies the inputs of `text` past those already consumed, until they run out, the session
   * ends, or work is needed (the rest comes back with the work's result: the gateway sends the
   * text again, so the session never keeps the text, which may hold a PIN, in its snapshot).
   */
  function consume(s: UssdSession, text: string, ctx: ActorContext, n0: number): void {
    const inputs = splitInputs(text);
    let n = n0;
    while (s.consumed < inputs.length && !s.pending && !s.ended && n - n0 < MAX_INPUTS) {
      applyInput(s, inputs[s.consumed]!, ctx, n++);
      s.consumed++;
    }
    // Past the cap the rest is dropped: the phone sees where it stands.
    if (s.consumed < inputs.length && n - n0 >= MAX_INPUTS) s.consumed = inputs.length;
  }

  function reply(s: UssdSession): HopReply {
    if (s.pending) return { kind: 'work', intentId: s.pending.id, intent: s.pending.intent, state: s.current.value };
    const pages = pagesOf(s);
    const end = s.ended;
    const body = pages[Math.min(s.page, pages.length - 1)] ?? '';
    const text = end ? `END ${clip(body, SCREEN_LIMIT - 4)}` : `CON ${body}`;
    return { kind: 'screen', text, end, state: end ? 'ended' : s.current.value, startedAt: s.startedAt };
  }

  function create(msg: Extract<UssdMessage, { kind: 'hop' }>, ctx: ActorContext): UssdSession {
    const first = steps.initial({
      phone: msg.phoneNumber,
      audience: msg.audience,
      pinSet: msg.pinSet,
      lang: msg.lang && msg.lang in catalogs ? msg.lang : DEFAULT_LANGUAGE,
    });
    const at = ctx.now.toISOString();
    return {
      sessionId: ctx.key,
      phoneNumber: msg.phoneNumber,
      serviceCode: msg.serviceCode,
      startedAt: at,
      lastActivityAt: at,
      consumed: 0,
      current: persist(first),
      history: [],
      page: 0,
      pending: null,
      ended: false,
    };
  }

  // `decide` must leave the state it is given as it is (the runtime holds it). A shallow copy is
  // enough, and a structuredClone cost ~9 µs a hop: the logic only ever replaces the session's
  // fields, never writes into `current`, `history` or `pending` (the unit tests hand it
  // deep-frozen states, so a write would throw there).
  return function decide(state: UssdSession | undefined, msg: UssdMessage, ctx: ActorContext): Decision<UssdSession> {
    if (msg.kind === 'hop') {
      if (state && state.phoneNumber !== msg.phoneNumber) {
        // Another phone using this session id: answer without touching the owner's session.
        return { state, reply: expired(ctx) };
      }
      const s: UssdSession = state ? { ...state } : create(msg, ctx);
      // A deploy may have renamed states a live session stands in: start it over from home.
      if (!known(s.current.value) || s.history.some((h) => !known(h.value))) {
        s.current = known(s.current.value) ? s.current : home(s.current.context);
        s.history = s.history.filter((h) => known(h.value));
        s.pending = null;
      }
      if (state && !state.ended && ctx.now.getTime() - Date.parse(state.lastActivityAt) > opts.idleMs) {
        end(s, t(s.current.context.lang, 'common.expired'));
      }
      if (s.ended) return { state: s, reply: reply(s) };
      s.lastActivityAt = ctx.now.toISOString();
      // Cumulative text only grows: an older one (a retry, a late duplicate) has nothing new.
      const text = opts.open(msg.sealedText);
      if (text === undefined) return { state, reply: expired(ctx) };
      if (!s.pending) consume(s, text, ctx, 0);
      return { state: s, reply: reply(s) };
    }
    if (msg.kind === 'close') return close(state, msg);
    if (!state) return { state, reply: expired(ctx) };
    const s = { ...state };
    if (s.pending?.id === msg.intentId) {
      s.pending = null;
      // Done work is not undone by "back": the screens before it (and the PIN hashes they hold) go.
      s.history = [];
      const next = steps.next(restore(s.current), { type: 'RESULT', result: msg.result });
      enter(s, persist(next), ctx, 0);
    }
    // Another request's inputs may have arrived meanwhile: whichever text is longest goes on.
    const text = opts.open(msg.sealedText) ?? '';
    if (!s.pending && !s.ended) consume(s, text, ctx, 1);
    return { state: s, reply: reply(s) };
  };
}

/**
 * The aggregator reports the session over: it ends (a late hop with its id gets END) and keeps
 * the status. A report that names another phone closes nothing.
 */
function close(state: UssdSession | undefined, msg: Extract<UssdMessage, { kind: 'close' }>): Decision<UssdSession> {
  if (!state || msg.phoneNumber !== state.phoneNumber) {
    const reply: CloseReply = { known: false };
    return { state, reply };
  }
  const first = state.outcome === undefined;
  const reply: CloseReply = { known: true, first, phoneNumber: state.phoneNumber, serviceCode: state.serviceCode };
  if (!first && state.ended) return { state, reply };
  const { context } = state.current;
  const current = state.ended
    ? state.current
    : { value: 'done', context: { ...context, notice: null, data: { endText: t(context.lang, 'common.expired') } } };
  return { state: { ...state, current, ended: true, pending: null, outcome: state.outcome ?? msg.status }, reply };
}

/** For a request that has no session of its own to continue. */
function expired(ctx: ActorContext): HopReply {
  const text = `END ${t(DEFAULT_LANGUAGE, 'common.expired')}`;
  return { kind: 'screen', text, end: true, state: 'ended', startedAt: ctx.now.toISOString() };
}

function clip(text: string, max: number): string {
  // Three dots, not U+2026: it is outside the GSM 7-bit alphabet most phones are sent.
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
