import type { Api } from './api.js';
import { compactJws } from './signer.js';
import { eventually } from './isolated.js';
import type { Scheme } from './voucher-fixtures.js';

/** A verified certificate of `value` whose CARBON is minted into the implementer's own account. */
export async function issueToTreasury(a: Api, implementerKey: string, certificateId: string, value: number) {
  await a.call('POST', '/v1/certificates', {
    key: implementerKey,
    body: {
      id: certificateId,
      projectId: 'did:ixo:entity:p1',
      verifiedReduction: value,
      status: 'verified',
      monitoringPlan: {
        approvedProducts: ['stove-1'],
        acceptedCredentialTypes: ['ProductDeliveryCredential'],
        claimWindowDays: 30,
      },
    },
  });
  const r = await a.call('POST', '/v1/issuances/treasury', {
    key: implementerKey,
    body: { emissionCertificateId: certificateId, value },
  });
  if (r.status !== 201) throw new Error(`treasury issuance failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { voucherId: string; accountDid: string };
}

/** Waits until an account's balance of `asset` satisfies `done` (tells arrive after the reply). */
export async function balanceOf(a: Api, did: string, asset: string, done: (b: Balance) => boolean): Promise<Balance> {
  return eventually(
    async () =>
      ((await a.call('GET', `/v1/accounts/${encodeURIComponent(did)}`)).body.balances?.[asset] as
        Balance | undefined) ?? {
        available: 0,
        held: 0,
        pending: 0,
      },
    done,
  );
}

export interface Balance {
  available: number;
  held: number;
  pending: number;
}

/** Deposits into the pool from the implementer's account and waits for the pool to hold it. */
export async function depositToPool(a: Api, implementerKey: string, amounts: Record<string, number>, key: string) {
  const before = (await a.call('GET', '/v1/pools/CARBON-USDC', { key: implementerKey })).body.reserves?.CARBON ?? 0;
  const r = await a.call('POST', '/v1/pools/CARBON-USDC/deposits', {
    key: implementerKey,
    body: { amounts, feeBps: 30 },
    headers: { 'idempotency-key': key },
  });
  if (r.status !== 201) throw new Error(`deposit failed: ${r.status} ${JSON.stringify(r.body)}`);
  await eventually(
    async () => (await a.call('GET', '/v1/pools/CARBON-USDC', { key: implementerKey })).body.reserves?.CARBON ?? 0,
    (carbon: number) => carbon >= before + (amounts.CARBON ?? 0),
  );
  return r;
}

/** A supplier's redemption of `amount` from a voucher, with its claim submitted: the claim's id. */
export async function redeemAndClaim(a: Api, s: Scheme, voucherId: string, amount: number): Promise<string> {
  const redemption = await a.call('POST', '/v1/vouchers/redeem', {
    key: s.supplierKey,
    body: { voucherId, supplierDid: s.supplierDid, amount, productId: 'stove-1' },
  });
  if (redemption.status !== 201)
    throw new Error(`redeem failed: ${redemption.status} ${JSON.stringify(redemption.body)}`);
  const proof = compactJws(s.supplier, { redemptionId: redemption.body.id, delivered: true });
  const claim = await a.call('POST', '/v1/claims', {
    key: s.supplierKey,
    body: { redemptionId: redemption.body.id, verifiableCredential: { type: 'ProductDeliveryCredential', proof } },
  });
  if (claim.status !== 201) throw new Error(`claim failed: ${claim.status} ${JSON.stringify(claim.body)}`);
  return claim.body.id as string;
}
