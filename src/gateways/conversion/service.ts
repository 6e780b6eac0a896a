import type { Asker } from '../../actors/runtime/asker.js';
import { conversionRef, type ConversionState } from '../../actors/conversion/index.js';
import { quoteOut } from '../../actors/pool/pool-math.js';
import { AppError } from '../../errors/index.js';
import type { ConversionReads, PoolRow } from './conversion-reads.js';
import { readUntil } from './wait.js';

/**
 * The token conversion flow's service: what its HTTP routes and the USSD wallet call (convert,
 * quote, a pool's id, and the decimal forms of micro-units re-exported below). Another product
 * imports conversions through this file only (test/unit/import-rules.test.ts).
 */
export { decimal, micro } from './conversion-view.js';

export interface ConvertDeps {
  client: Asker;
  reads: ConversionReads;
  /** STABLECOIN_SYMBOL: the stablecoin the pool pairs with CARBON. */
  stablecoin: string;
}

/** The pool of CARBON and the stablecoin (one per deployment, seeded by an implementer). */
export const poolId = (stablecoin: string): string => `CARBON-${stablecoin}`;

const ended = (s: ConversionState['status']): boolean => s === 'completed' || s === 'failed' || s === 'rejected';

export interface ConvertRequest {
  /** The conversion's id (from the caller's DID and its Idempotency-Key, or a USSD order). */
  id: string;
  fingerprint: string;
  account: string;
  assetIn: string;
  /** Micro-units. */
  amountIn: string;
  minOut: string;
}

/**
 * Starts a conversion saga through the deployment's pool and waits up to `waitMs` for it to end:
 * the one way in, over HTTP and USSD alike. Answers the saga as it stands then.
 */
export async function convert(d: ConvertDeps, r: ConvertRequest, waitMs: number): Promise<ConversionState> {
  const pool = poolId(d.stablecoin);
  if (!(await d.reads.pool(pool))) throw new AppError('POOL_NOT_FOUND', `the pool ${pool} has not been seeded`);
  const { id, ...start } = r;
  const started = await d.client.ask(conversionRef, id, { kind: 'start', pool, ...start });
  if (ended(started.status)) return started;
  return (
    (await readUntil(
      () => d.reads.conversion(id),
      (c) => ended(c.status),
      waitMs,
    )) ?? started
  );
}

/** What `amountIn` of `assetIn` buys from a pool now, in micro-units; undefined if it does not trade it. */
export function quote(
  p: PoolRow,
  assetIn: string,
  amountIn: bigint,
): { assetOut: string; amountOut: bigint } | undefined {
  const assetOut = p.assets.find((a) => a !== assetIn);
  if (!assetOut || !p.assets.includes(assetIn)) return undefined;
  const r = { in: BigInt(p.reserves[assetIn]!), out: BigInt(p.reserves[assetOut]!) };
  return { assetOut, amountOut: quoteOut(r, amountIn, p.feeBps) };
}
