import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { didKeyFromEd25519 } from '../../src/gateways/auth/did-key.js';
import { contentDigest } from '../../src/gateways/auth/message-signature.js';
import { nodeArgs } from '../lib/child.js';
import { startGateway } from '../lib/gateway.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';
import { RawHttpConnection } from '../lib/raw-http.js';

const adminKey = randomBytes(32).toString('hex');

interface Supplier {
  did: string;
  key: KeyObject;
  apiKey: string;
}

/** RFC 9421 headers, as a supplier's client would send them. */
function signed(s: Supplier, path: string, body: string): Record<string, string> {
  const digest = contentDigest(Buffer.from(body));
  const params = `("@method" "@path" "content-digest");created=${Math.floor(Date.now() / 1000)};keyid="${s.did}";alg="ed25519";nonce="${randomBytes(9).toString('base64url')}"`;
  const base = `"@method": POST\n"@path": ${path}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
  return {
    authorization: `Bearer ${s.apiKey}`,
    'content-type': 'application/json',
    'content-digest': digest,
    'signature-input': `sig1=${params}`,
    signature: `sig1=:${sign(null, Buffer.from(base), s.key).toString('base64')}:`,
  };
}

/**
 * Redemptions through the whole HTTP stack (gateway process → worker process): API key,
 * supplier signature, registry look-ups, the voucher actor, the commit. On 10,000 distinct
 * vouchers and on one hot voucher.
 */
export async function httpRedemptions(
  env: BenchEnv,
  concurrency: number,
  vouchers: number,
  /** Runs between seeding and measuring (the run vacuums there: autovacuum is off here). */
  afterSeeding: () => Promise<void> = () => Promise.resolve(),
  /** Started and stopped around each level, given the gateway's pid (the probe's CPU per process). */
  meter?: (gatewayPid: number) => { start(): void; stop(): void; spent(): Record<string, number> },
): Promise<{
  spread: LevelResult;
  hot: LevelResult;
  cpu?: { spread: Record<string, number>; hot: Record<string, number> };
}> {
  const gateway = await startGateway(env, { HEARTH_ADMIN_KEY: adminKey }, nodeArgs(process.env.BENCH_GATEWAY_ARGS));
  try {
    const base = gateway.base;
    const post = async (
      path: string,
      body: unknown,
      headers: Record<string, string> = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    ) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const did = didKeyFromEd25519(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
    const apiKey = String((await post('/v1/api-keys', { role: 'supplier', did })).body.key);
    const supplier: Supplier = { did, key: privateKey, apiKey };
    await post('/v1/suppliers', { did, name: 'Bench supplier', authorized: true });
    await post('/v1/products', { id: 'stove', name: 'Stove', approved: true });
    await post('/v1/households', { did: 'did:key:zbenchhousehold' });
    const plan = { approvedProducts: ['stove'], acceptedCredentialTypes: ['Delivery'], claimWindowDays: 30 };
    const ids: string[] = [];
    for (let start = 0; start <= vouchers; start += 200) {
      const batch = Array.from({ length: Math.min(200, vouchers + 1 - start) }, (_, i) => `http-${start + i}`);
      const issued = await Promise.all(
        batch.map(async (cert) => {
          await post('/v1/certificates', {
            id: cert,
            projectId: 'did:ixo:bench',
            verifiedReduction: 1e9,
            status: 'verified',
            monitoringPlan: plan,
          });
          const r = await post('/v1/vouchers/issue', {
            recipientDid: 'did:key:zbenchhousehold',
            emissionCertificateId: cert,
            value: 1e9,
            attributes: { batchId: 'bench', issuanceDate: '2026-01-01', expiryDate: '2099-12-31' },
          });
          return String(r.body.id);
        }),
      );
      ids.push(...issued);
    }
    const hot = ids.pop()!;
    // The measured requests go over one keep-alive connection per client, written directly (as
    // in the USSD suite): fetch() cost the load generator, on the servers' cores, more than the
    // Ed25519 signature every request carries.
    const { hostname, port } = new URL(base);
    const connections = Array.from({ length: concurrency }, () => new RawHttpConnection(hostname, Number(port)));
    const redeem = async (w: number, voucherId: string): Promise<void> => {
      const body = JSON.stringify({ voucherId, supplierDid: did, amount: 1, productId: 'stove' });
      const r = await connections[w]!.request(
        'POST',
        '/v1/vouchers/redeem',
        body,
        signed(supplier, '/v1/vouchers/redeem', body),
      );
      if (r.status !== 201) throw new Error(`redeem answered ${r.status}: ${r.body}`);
    };
    try {
      // An unmeasured pass redeems each voucher once (as the USSD suite warms its gateway): a
      // gateway reads a voucher's certificate the first time it meets the voucher (two queries),
      // and a level of 5 s over 10,000 vouchers would otherwise measure mostly that first meeting.
      let next = 0;
      await Promise.all(
        connections.map(async (_c, w) => {
          for (let i = next++; i < ids.length; i = next++) await redeem(w, ids[i]!);
        }),
      );
      await afterSeeding();
      const spreadMeter = meter?.(gateway.pid);
      spreadMeter?.start();
      const spread = await closedLoop(concurrency, env.seconds * 1000, (w, i) =>
        redeem(w, ids[(i * 7919 + w * 104729) % ids.length]!),
      );
      spreadMeter?.stop();
      const hotMeter = meter?.(gateway.pid);
      hotMeter?.start();
      const hotResult = await closedLoop(concurrency, env.seconds * 1000, (w) => redeem(w, hot));
      hotMeter?.stop();
      const cpu = spreadMeter && hotMeter ? { spread: spreadMeter.spent(), hot: hotMeter.spent() } : undefined;
      return { spread, hot: hotResult, cpu };
    } finally {
      for (const c of connections) c.close();
    }
  } finally {
    await gateway.stop();
  }
}
