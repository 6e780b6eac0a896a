import { describe, expect, it } from 'vitest';
import type { ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { accountActor, type AccountMessage } from '../../../../src/actors/account/index.js';
import { poolActor, type PoolMessage } from '../../../../src/actors/pool/index.js';
import { voucherActor } from '../../../../src/actors/voucher/index.js';
import type { VoucherMessage } from '../../../../src/actors/voucher/messages.js';
import { chatSessionActor } from '../../../../src/actors/chat/index.js';
import type { ChatMessage } from '../../../../src/actors/chat/messages.js';
import { decider } from '../../../support/decider.js';

/**
 * The runtime's guard on actor state (issue 38, docs/architecture.md "Actor state and its bounds"):
 * 20,000 messages to one actor of each kind whose history grows, and its snapshot may not grow
 * with them. Sizes are read after a first window (so holds in flight and totals have their
 * size) and at the end; the only growth allowed is a few digits of the totals.
 */
const MESSAGES = 20_000;
const WINDOW = 1_000;
/** Totals gain digits as they grow (a balance from 7 to 8 digits): no more than this. */
const SLACK_BYTES = 48;

function sizesOver<S, M extends { kind: string }>(
  def: ActorDefinition<S, M>,
  setup: readonly M[],
  nth: (i: number) => M,
): { window: number; end: number; refused: number } {
  const actor = decider(def, { key: 'did:key:hot' });
  for (const m of setup) if (actor.send(m).rejection) throw new Error(`setup refused: ${m.kind}`);
  let window = 0;
  let refused = 0;
  for (let i = 0; i < MESSAGES; i++) {
    if (actor.send(nth(i)).rejection) refused++;
    if (i === WINDOW) window = JSON.stringify(actor.state).length;
  }
  return { window, end: JSON.stringify(actor.state).length, refused };
}

describe('snapshots do not grow with their actor’s history (20,000 messages each)', () => {
  it('an account: a supplier with redemptions credited and settled, conversions held and captured, ITMO claims', () => {
    const sizes = sizesOver<unknown, AccountMessage>(
      accountActor,
      [{ kind: 'credit', id: 'seed', asset: 'CARBON', amount: '1000000000000' }],
      (i): AccountMessage => {
        const r = Math.floor(i / 6);
        switch (i % 6) {
          case 0: // a redemption's CARBON, pending until its claim is decided (most stay pending)
          case 1:
            return { kind: 'credit-pending', id: `r${i}:pending`, asset: 'CARBON', amount: '1000000' };
          case 2: // a claim decided, for one credit in three
            return {
              kind: 'settle-pending',
              id: `r${i - 2}:pending`,
              asset: 'CARBON',
              amount: '1000000',
              outcome: 'accepted',
            };
          case 3:
            return { kind: 'hold', id: `x${r}:hold`, asset: 'CARBON', amount: '5' };
          case 4:
            return { kind: 'capture', id: `x${r}:hold`, credit: { asset: 'USDC', amount: '4' } };
          default:
            return { kind: 'claim-itmo', id: `itmo-${r}`, amount: '1' };
        }
      },
    );
    expect(sizes.refused).toBe(0);
    expect(sizes.end - sizes.window).toBeLessThanOrEqual(SLACK_BYTES);
  });

  it('a pool: swaps remembered by step id, deposits by id', () => {
    const sizes = sizesOver<unknown, PoolMessage>(
      poolActor,
      [{ kind: 'deposit', id: 'seed', deposits: { CARBON: '1000000000000', USDC: '1000000000000' }, feeBps: 30 }],
      (i): PoolMessage =>
        i % 10 === 9
          ? { kind: 'deposit', id: `d${i}`, deposits: { CARBON: '10', USDC: '10' }, feeBps: 30 }
          : {
              kind: 'swap',
              id: `c${i}:swap`,
              account: 'did:key:trader',
              assetIn: i % 2 ? 'CARBON' : 'USDC',
              amountIn: '1000',
              minOut: '0',
              replyTo: { type: 'conversion', key: `c${i}` },
            },
    );
    expect(sizes.refused).toBe(0);
    expect(sizes.end - sizes.window).toBeLessThanOrEqual(SLACK_BYTES);
  });

  it('a voucher: redemptions remembered by request, refunds by redemption', () => {
    const sizes = sizesOver<unknown, VoucherMessage>(
      voucherActor,
      [
        {
          kind: 'issue',
          requestId: 'issue',
          recipientDid: 'did:key:household',
          emissionCertificateId: 'cert',
          value: 1e15,
          attributes: { batchId: 'b', issuanceDate: '2026-01-01', expiryDate: '2099-12-31' },
        },
      ],
      (i): VoucherMessage =>
        i % 4 === 3
          ? { kind: 'refund', redemptionId: `red-${i}`, amount: 1 }
          : { kind: 'redeem', requestId: `q${i}`, supplierDid: 'did:key:s', productId: 'stove', amount: 1 },
    );
    expect(sizes.refused).toBe(0);
    expect(sizes.end - sizes.window).toBeLessThanOrEqual(SLACK_BYTES);
  });

  it('a chat session: its messages are records, not state', () => {
    const owner = 'did:key:owner';
    const sizes = sizesOver<unknown, ChatMessage>(
      chatSessionActor,
      [{ kind: 'create', ownerDid: owner, oracleName: 'o', oracleDid: 'did:key:o' }],
      (i): ChatMessage => ({
        kind: 'append',
        ownerDid: owner,
        messages: [{ id: `m${i}`, type: i % 2 ? 'ai' : 'human', content: 'hello there', requestId: `q${i}` }],
      }),
    );
    expect(sizes.refused).toBe(0);
    expect(sizes.end - sizes.window).toBeLessThanOrEqual(SLACK_BYTES);
  });
});
