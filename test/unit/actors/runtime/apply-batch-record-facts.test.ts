import { describe, expect, it } from 'vitest';
import { applyBatch, factsNeeded } from '../../../../src/actors/runtime/apply-batch.js';
import type { MailboxEntry } from '../../../../src/actors/runtime/entry-codec.js';
import type { Slot } from '../../../../src/actors/runtime/ports.js';
import { recordFact, type ActorDefinition } from '../../../../src/actors/runtime/types.js';
import { voucherActor } from '../../../../src/actors/voucher/index.js';
import type { VoucherMessage } from '../../../../src/actors/voucher/messages.js';
import { redemptionIdFor } from '../../../../src/actors/voucher/redemption-id.js';

/**
 * A retry of a redemption in the same round as its first try: the record the first wrote is
 * read as a fact by the second (apply-batch.ts, `recorded`), through the runtime itself, not
 * through a test decider that copies records into facts. Without it the second try would redeem
 * again (a second debit, and on PostgreSQL a second record under the same id).
 */
const def = voucherActor as unknown as ActorDefinition;
const now = new Date('2026-03-01T00:00:00Z');
let n = 0;
function entry(body: VoucherMessage): MailboxEntry {
  n++;
  return {
    id: `300-${n}`,
    key: 'vch_r',
    kind: body.kind,
    body: JSON.stringify(body),
    reply: 'r',
    corr: `c${n}`,
    ts: 0,
  };
}
const redeem = (requestId: string): VoucherMessage => ({
  kind: 'redeem',
  requestId,
  supplierDid: 'did:key:zs',
  productId: 'p',
  amount: 1_000,
});
const issued: Slot = {
  version: 1,
  lastMsgId: '1-0',
  state: {
    id: 'vch_r',
    status: 'active',
    recipientDid: 'did:key:zh',
    emissionCertificateId: 'c-r',
    value: 10_000,
    remainingBalance: 10_000,
    attributes: { batchId: 'b', issuanceDate: '2026-01-01', expiryDate: '2026-06-30' },
    createdAt: '2026-01-01T00:00:00.000Z',
    redemptionCount: 0,
    issueRequestId: 'req-issue',
    minted: true,
  },
};

describe('a redemption retried in the round of its first try', () => {
  it('is answered with the first redemption: one record, one debit', () => {
    const entries = [entry(redeem('k1')), entry(redeem('k1')), entry(redeem('k2'))];
    const out = applyBatch(def, entries, new Map([['vch_r', issued]]), now);
    expect(out.records.map((r) => r.id)).toEqual([redemptionIdFor('vch_r', 'k1'), redemptionIdFor('vch_r', 'k2')]);
    expect((out.dirty.get('vch_r')?.state as { remainingBalance: number }).remainingBalance).toBe(8_000);
    const [first, retry] = out.replies.map((r) => JSON.parse(r.body) as { id: string });
    expect(retry).toEqual(first);
  });

  it('probes the record a request would have made, and the older request fact only for a key a client gave', () => {
    const needs = factsNeeded(def, [entry(redeem('k9')), entry(redeem('srv:0f1e'))]);
    expect(needs).toEqual([
      { key: 'vch_r', id: recordFact('redemption', redemptionIdFor('vch_r', 'k9')) },
      { key: 'vch_r', id: 'redeem:k9' },
      { key: 'vch_r', id: recordFact('redemption', redemptionIdFor('vch_r', 'srv:0f1e')) },
    ]);
  });
});
