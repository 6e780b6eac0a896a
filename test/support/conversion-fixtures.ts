import { createHmac, randomBytes } from 'node:crypto';
import type { Api } from './api.js';
import { compactJws, newSigner } from './signer.js';
import { eventually } from './isolated.js';
import { createCertificate, type Scheme } from './voucher-fixtures.js';

/** A verified certificate of `value` whose CARBON is minted into the implementer's own account. */
export async function issueToTreasury(a: Api, implementerKey: string, certificateId: string, value: number) {
  await createCertificate(a, implementerKey, certificateId, value);
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

/** Another authorized supplier with its own signed key, as a Scheme the other fixtures take. */
export async function addSupplier(a: Api, s: Scheme, name: string): Promise<Scheme> {
  const supplier = newSigner();
  const key = (await a.call('POST', '/v1/api-keys', { body: { role: 'supplier', did: supplier.did } })).body
    .key as string;
  a.signWith(key, supplier);
  const r = await a.call('POST', '/v1/suppliers', {
    key: s.implementerKey,
    body: { did: supplier.did, name, authorized: true },
  });
  if (r.status !== 201) throw new Error(`supplier failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { ...s, supplier, supplierDid: supplier.did, supplierKey: key };
}

/**
 * Brings `amount` of the stablecoin into the implementer's account the way step 6 does: an
 * exchange order (at a rate of 1), confirmed by the operator's signed callback.
 */
export async function stablecoinFromExchange(a: Api, implementerKey: string, did: string, amount: number) {
  const operator = `fx-${randomBytes(4).toString('hex')}`;
  const made = await a.call('POST', '/v1/counterparties', {
    body: { id: operator, kind: 'exchange-operator', name: operator },
  });
  const order = await a.call('POST', '/v1/exchange-orders', {
    key: implementerKey,
    body: { exchange: operator, fiatAmount: amount, currency: 'USD', rate: 1 },
    headers: { 'idempotency-key': operator },
  });
  const body = JSON.stringify({ orderId: order.body.id, status: 'settled', reference: operator });
  const t = String(Math.floor(Date.now() / 1000));
  const mac = createHmac('sha256', made.body.secret as string)
    .update(`${t}.${body}`)
    .digest('hex');
  const settled = await a.call('POST', `/v1/callbacks/${operator}`, {
    key: '',
    body,
    headers: { 'x-hearth-timestamp': t, 'x-hearth-signature': `sha256=${mac}` },
  });
  if (settled.status !== 200) throw new Error(`exchange failed: ${settled.status} ${JSON.stringify(settled.body)}`);
  await balanceOf(a, did, 'USDC', (b) => b.available >= amount);
}

/** An implementer whose key acts for a DID (its account), and a regulator's key. */
export async function conversionParties(
  a: Api,
): Promise<{ implementer: string; implementerKey: string; regulatorKey: string }> {
  const implementer = newSigner().did;
  const implementerKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer', did: implementer } }))
    .body.key as string;
  const regulatorKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'regulator' } })).body.key as string;
  return { implementer, implementerKey, regulatorKey };
}
