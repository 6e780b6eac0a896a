import { createHash } from 'node:crypto';
import type { Intent, IntentResult } from '../../actors/ussd/index.js';
import { CARBON } from '../../common/movement.js';
import { AppError } from '../../errors/index.js';
import { convert, type ConvertDeps, decimal, micro, poolId, quote } from '../conversion/service.js';
import type { PhoneOwner } from './phone-directory.js';
import type { PinStore } from './pin-store.js';

export interface WalletDeps extends ConvertDeps {
  /** How long a USSD conversion waits for its saga: well inside the hop's deadline. */
  waitMs: number;
}

/** What a conversion from a phone accepts below the quote: swaps by others may move the price. */
const TOLERANCE_BPS = 100n;

/**
 * The supplier wallet's work orders (flows/supplier-wallet.ts): its balances behind the PIN, a
 * quote, and the conversion itself, through the same saga as `POST /v1/conversions/carbon-to-stable`.
 */
export async function carryOutWallet(
  d: WalletDeps & { pins: PinStore },
  order: { id: string; intent: Extract<Intent, { op: 'wallet' | 'quoteConversion' | 'convert' }> },
  phone: string,
  owner: PhoneOwner,
  now: Date,
): Promise<IntentResult> {
  if (owner.audience !== 'supplier' || !owner.did) return { ok: false, reason: 'only a supplier has a wallet' };
  const did = owner.did;
  const { intent } = order;
  switch (intent.op) {
    case 'wallet': {
      const check = await d.pins.verify(phone, did, intent.pinMac, now, order.id);
      if (!check.ok) return check;
      const { balances } = await d.reads.account(did);
      const carbon = balances[CARBON];
      const stable = balances[d.stablecoin];
      return {
        ok: true,
        data: {
          carbon: decimal(carbon?.available ?? '0'),
          pending: decimal(carbon?.pending ?? '0'),
          stable: decimal(stable?.available ?? '0'),
          symbol: d.stablecoin,
        },
      };
    }
    case 'quoteConversion': {
      const pool = await d.reads.pool(poolId(d.stablecoin));
      const q = pool && quote(pool, CARBON, BigInt(micro(intent.amount)));
      if (!q || q.amountOut === 0n) return { ok: false, reason: 'the pool cannot convert this now' };
      const minReceive = (q.amountOut * (10_000n - TOLERANCE_BPS)) / 10_000n;
      return { ok: true, data: { quote: decimal(String(q.amountOut)), minReceive: decimal(String(minReceive)) } };
    }
    case 'convert': {
      const check = await d.pins.verify(phone, did, intent.pinMac, now, order.id);
      if (!check.ok) return check;
      // The order's id names the conversion: a request carried out twice starts one saga.
      const id = `cv_${createHash('sha256').update(`${did}\u0000ussd:${order.id}`).digest('hex').slice(0, 32)}`;
      const fingerprint = createHash('sha256').update(`ussd ${intent.amount} ${intent.minReceive}`).digest('hex');
      try {
        const c = await convert(
          d,
          {
            id,
            fingerprint,
            account: did,
            assetIn: CARBON,
            amountIn: micro(intent.amount),
            minOut: micro(intent.minReceive),
          },
          d.waitMs,
        );
        if (c.status === 'completed') return { ok: true, data: { received: decimal(c.fill!.amountOut) } };
        if (c.failure) return { ok: false, reason: refusal(c.failure.code, c.failure.message) };
        return { ok: true, data: {} };
      } catch (err) {
        if (err instanceof AppError && err.status < 500) return { ok: false, reason: err.message };
        throw err;
      }
    }
  }
}

/** A refusal as a phone shows it: short, and what to do about it. */
function refusal(code: string, message: string): string {
  if (code === 'INSUFFICIENT_BALANCE') return `${message} (pending CARBON counts once its claim is accepted)`;
  if (code === 'SLIPPAGE') return 'the price moved; try again';
  return message;
}
