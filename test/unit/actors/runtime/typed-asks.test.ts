import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ActorClient } from '../../../../src/store/redis/actor-client.js';
import { chatRef, type ChatSession } from '../../../../src/actors/chat/messages.js';
import { voucherRef, type Redemption, type VoucherState } from '../../../../src/actors/voucher/messages.js';

/**
 * Typed asks: the message is checked against the actor's union and the reply typed by its kind.
 * The checks are the compiler's (`npm run typecheck` covers this file): each `@ts-expect-error`
 * fails the typecheck the day the line it marks compiles.
 */
function asks(client: ActorClient) {
  const redemption = client.ask(voucherRef, 'v1', {
    kind: 'redeem',
    requestId: 'r',
    supplierDid: 'did:key:s',
    productId: 'p',
    amount: 1,
  });
  expectTypeOf(redemption).resolves.toEqualTypeOf<Redemption>();
  expectTypeOf(client.ask(voucherRef, 'v1', { kind: 'get' })).resolves.toEqualTypeOf<VoucherState>();
  expectTypeOf(client.ask(chatRef, 's1', { kind: 'get', ownerDid: 'did:key:u' })).resolves.toEqualTypeOf<ChatSession>();
  // @ts-expect-error: a redemption without its fields
  void client.ask(voucherRef, 'v1', { kind: 'redeem' });
  // @ts-expect-error: a kind the voucher does not take
  void client.ask(voucherRef, 'v1', { kind: 'explode' });
  // @ts-expect-error: a field the message does not have
  void client.ask(chatRef, 's1', { kind: 'get', ownerDid: 'did:key:u', extra: 1 });
}

describe('typed asks', () => {
  it('name the actor type they address', () => {
    expect(voucherRef.type).toBe('voucher');
    expect(chatRef.type).toBe('chat');
    expect(typeof asks).toBe('function');
  });
});
