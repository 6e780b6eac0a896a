import { AppError } from '../../../errors/index.js';
import type { Logger } from '../../../log.js';
import type { OraclePlugin } from './plugin.js';

/** The reference runtime's credits gate messages, verbatim (wire reference). */
export const CREDIT_MESSAGES = {
  none: 'No subscription found, please subscribe to continue',
  inactive: 'User has inactive subscription, please subscribe to continue',
  low: 'User has less than 10 credits, please top up to continue',
  failed: 'Subscription validation failed',
} as const;

export interface Subscription {
  status: 'active' | 'inactive' | 'none';
  credits: number;
}

/**
 * A credits gate: before each message turn the caller's subscription is looked up (ORACLE_CREDITS_URL
 * answers `{status, credits}` for `?did=`); no subscription, an inactive one, or fewer than 10
 * credits answer 402 with the reference's messages, and a failed lookup too.
 */
export function creditsPlugin(lookup: (did: string) => Promise<Subscription | undefined>, log?: Logger): OraclePlugin {
  return {
    name: 'credits',
    async beforeMessage(who) {
      let sub: Subscription | undefined;
      try {
        sub = await lookup(who.did);
      } catch (err) {
        // The client hears only the reference's message; the operator needs the cause.
        log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'credits lookup failed');
        throw new AppError('PAYMENT_REQUIRED', CREDIT_MESSAGES.failed);
      }
      if (!sub || sub.status === 'none') throw new AppError('PAYMENT_REQUIRED', CREDIT_MESSAGES.none);
      if (sub.status !== 'active') throw new AppError('PAYMENT_REQUIRED', CREDIT_MESSAGES.inactive);
      if (!(sub.credits >= 10)) throw new AppError('PAYMENT_REQUIRED', CREDIT_MESSAGES.low);
    },
  };
}

/** Looks subscriptions up over HTTP: GET `<url>?did=<did>` → `{status, credits}`; 404 is "none". */
export function httpSubscriptions(url: string) {
  return async (did: string): Promise<Subscription | undefined> => {
    const u = new URL(url);
    u.searchParams.set('did', did);
    const res = await fetch(u, { signal: AbortSignal.timeout(3_000) });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`subscriptions answered ${res.status}`);
    const body = (await res.json()) as Partial<Subscription>;
    const status = body.status === 'active' || body.status === 'inactive' ? body.status : 'none';
    return { status, credits: Number(body.credits ?? 0) };
  };
}
