import { z } from 'zod';
import type { Asker } from '../../actors/runtime/asker.js';
import { accountRef } from '../../actors/account/index.js';
import { voucherRef } from '../../actors/voucher/messages.js';
import { toMicro } from '../../actors/voucher/money.js';
import { voucherIdFor } from '../../actors/voucher/representation.js';
import { AppError } from '../../errors/index.js';
import type { Certificate } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import { guarded, type Guards } from '../auth/guard.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody } from '../http/context.js';
import { requestIdOf } from '../http/operation-id.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { amount, resourceId } from '../http/fields.js';
import { accountOf, inDecimals, stepIdOf } from './caller.js';
import { accountViewSchema } from './schemas.js';
import { accountView, micro } from './conversion-view.js';
import { applyDeposit } from './pool-deposit.js';

const treasuryBody = z.object({ emissionCertificateId: resourceId, value: amount }).strict();

const treasuryIssueSchema = z.strictObject({
  voucherId: z.string(),
  accountDid: z.string(),
  emissionCertificateId: z.string(),
  value: z.number(),
  createdAt: z.iso.datetime(),
});

const depositBody = z
  .object({
    /** Both assets of the pool, decimals. */
    amounts: z.record(z.string(), amount),
    /** The pool's fee on each swap's input, basis points: taken from the first deposit only. */
    feeBps: z.number().int().min(0).max(1_000).default(30),
  })
  .strict();

const depositSchema = z.strictObject({
  id: z.string(),
  pool: z.string(),
  accountDid: z.string(),
  amounts: z.record(z.string(), z.number()),
  /** What the account holds after the deposit left it. */
  balances: accountViewSchema.shape.balances,
});

export interface TreasuryDeps {
  client: Asker;
  certificates: Registry<Certificate>;
  stablecoin: string;
  clock: () => Date;
  /** CONVERSION_WAIT_MS: how long a deposit waits for the pool to apply it before answering 202. */
  waitMs: number;
}

/**
 * How CARBON and liquidity reach a pool: an implementer's treasury issuance (a verified
 * certificate's CARBON minted into its own account, issuance rules 1 and 3, one issuance per
 * certificate like a voucher), and its deposits into the pool from that account.
 */
export function treasuryRoutes(g: Guards, d: TreasuryDeps): RouteSpec[] {
  const pool = `CARBON-${d.stablecoin}`;
  return [
    {
      method: 'POST',
      path: '/v1/issuances/treasury',
      doc: {
        operationId: 'issueToTreasury',
        summary: "Mint a verified certificate's CARBON into the implementer's own account (implementer with a DID)",
        tag: 'conversions',
        body: treasuryBody,
        responses: { 201: 'The issuance' },
        responseBody: treasuryIssueSchema,
        errors: [
          'CERTIFICATE_NOT_FOUND',
          'CERTIFICATE_NOT_VERIFIED',
          'VALUE_MISMATCH',
          'CERTIFICATE_ALREADY_USED',
          'FORBIDDEN',
          ...askErrors,
        ],
      },
      handler: guarded(g, ['implementer'], async (ctx, who) => {
        const account = accountOf(who);
        const body = await jsonBody(ctx, treasuryBody);
        const certificate = await d.certificates.get(body.emissionCertificateId);
        if (!certificate) throw new AppError('CERTIFICATE_NOT_FOUND', `no certificate ${body.emissionCertificateId}`);
        if (certificate.status !== 'verified') {
          throw new AppError('CERTIFICATE_NOT_VERIFIED', `certificate ${certificate.id} is ${certificate.status}`);
        }
        if (toMicro(body.value) !== toMicro(certificate.verifiedReduction)) {
          throw new AppError('VALUE_MISMATCH', 'value must equal the verified reduction of the certificate', {
            value: body.value,
            verifiedReduction: certificate.verifiedReduction,
          });
        }
        const today = d.clock().toISOString().slice(0, 10);
        const v = await d.client.ask(voucherRef, voucherIdFor(certificate.id), {
          kind: 'issue',
          requestId: requestIdOf(ctx, who),
          recipientDid: account,
          emissionCertificateId: certificate.id,
          value: toMicro(body.value),
          attributes: { batchId: 'treasury', issuanceDate: today, expiryDate: today },
          treasury: true,
        });
        return json(201, {
          voucherId: v.id,
          accountDid: account,
          emissionCertificateId: v.emissionCertificateId,
          value: v.value / 1e6,
          createdAt: v.createdAt,
        });
      }),
    },
    {
      method: 'POST',
      path: '/v1/pools/:id/deposits',
      doc: {
        operationId: 'depositToPool',
        summary: "Move CARBON and the stablecoin from the implementer's account into the pool (the first seeds it)",
        tag: 'conversions',
        body: depositBody,
        idempotencyKey: 'required',
        responses: {
          201: 'The deposit, applied by the pool: a read of the pool right after shows it in the reserves',
          202:
            'The deposit left the account, but the pool had not applied it after CONVERSION_WAIT_MS: it will, ' +
            'once; `Location` is the pool, which shows it then',
        },
        responseBody: depositSchema,
        errors: ['POOL_NOT_FOUND', 'INSUFFICIENT_BALANCE', 'IDEMPOTENCY_KEY_REUSED', 'FORBIDDEN', ...askErrors],
      },
      handler: guarded(g, ['implementer'], async (ctx, who) => {
        const account = accountOf(who);
        if (ctx.params.id !== pool)
          throw new AppError('POOL_NOT_FOUND', `no pool ${ctx.params.id}: this deployment's is ${pool}`);
        const id = stepIdOf('dep', account, ctx);
        const body = await jsonBody(ctx, depositBody);
        const assets = Object.keys(body.amounts).sort();
        if (assets.join() !== ['CARBON', d.stablecoin].sort().join()) {
          throw new AppError(
            'VALIDATION_FAILED',
            `a deposit names both assets of the pool: CARBON and ${d.stablecoin}`,
          );
        }
        const amounts = Object.fromEntries(Object.entries(body.amounts).map(([a, n]) => [a, micro(n)]));
        const after = await d.client
          .ask(accountRef, account, { kind: 'deposit', id, pool, amounts, feeBps: body.feeBps })
          .catch(inDecimals);
        const { balances } = accountView(account, after);
        const deposit = { id, pool, accountDid: account, amounts: body.amounts, balances };
        // The 201 waits for the pool to apply the deposit, so that a read of the pool sees it.
        const toPool = { id, deposits: amounts, feeBps: body.feeBps };
        if (await applyDeposit(d.client, pool, toPool, d.waitMs, ctx.log)) return json(201, deposit);
        return json(202, deposit, { Location: `/v1/pools/${pool}` });
      }),
    },
  ];
}
