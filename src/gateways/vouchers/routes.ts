import type { ActorClient } from '../../actors/runtime/actor-client.js';
import type { VoucherState } from '../../actors/voucher/messages.js';
import { toMicro } from '../../actors/voucher/money.js';
import { redemptionView, voucherIdFor, voucherView } from '../../actors/voucher/representation.js';
import { AppError } from '../../errors/index.js';
import type { Certificate, Household, Product, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherReads } from './voucher-reads.js';
import type { Principal } from '../auth/principal.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { pageQuery } from '../http/pagination.js';
import { requestIdOf } from '../http/operation-id.js';
import { checkDates, issueBody, redeemBody, revokeBody, voucherListQuery } from './schemas.js';
import type { VoucherPlans } from './product-rule.js';
import { checkRedeemer, redeem } from './redeem.js';
import { voucherRef } from '../../actors/voucher/messages.js';
import { isVoucherCode } from '../../actors/voucher/code.js';
import type { VoucherCodes } from './voucher-codes.js';

export interface VoucherDeps {
  client: ActorClient;
  reads: VoucherReads;
  households: Registry<Household>;
  certificates: Registry<Certificate>;
  suppliers: Registry<Supplier>;
  products: Registry<Product>;
  /** The plan each voucher is held to (redemption rule 4). */
  plans: VoucherPlans;
  codes: VoucherCodes;
  clock: () => Date;
}

/** A household sees only its own vouchers; to it, anyone else's does not exist. */
function visibleTo(who: Principal, v: VoucherState | undefined): v is VoucherState {
  return v !== undefined && (who.role !== 'household' || v.recipientDid === who.did);
}

/** A path's voucher: its id, or its code (digits only) looked up; an unknown code names no voucher. */
async function voucherIdOf(codes: VoucherCodes, idOrCode: string): Promise<string> {
  if (!/^[0-9]+$/.test(idOrCode)) return idOrCode;
  return (await codes.voucherOf(idOrCode)) ?? idOrCode;
}

/** The voucher a redemption's `voucherCode` names: a mistyped code and an unknown one are told apart. */
async function voucherOfCode(codes: VoucherCodes, code: string): Promise<string> {
  if (!isVoucherCode(code)) {
    throw new AppError('VALIDATION_FAILED', 'invalid body', [
      { path: 'voucherCode', message: 'is mistyped: its check digit does not match' },
    ]);
  }
  const id = await codes.voucherOf(code);
  if (!id) throw new AppError('VOUCHER_NOT_FOUND', `no voucher with code ${code}`);
  return id;
}

export function voucherRoutes(g: Guards, d: VoucherDeps): RouteSpec[] {
  const today = (): string => d.clock().toISOString().slice(0, 10);
  return [
    {
      method: 'POST',
      path: '/v1/vouchers/issue',
      doc: {
        summary: 'Issue a voucher against a verified certificate (implementer)',
        tag: 'vouchers',
        body: issueBody,
        responses: { 201: 'The voucher' },
      },
      handler: guarded(g, ['implementer', 'admin'], async (ctx, who) => {
        const body = await jsonBody(ctx, issueBody);
        checkDates(body.attributes);
        // The three issuance rules, in the spec's order.
        const certificate = await d.certificates.get(body.emissionCertificateId);
        if (!certificate) throw new AppError('CERTIFICATE_NOT_FOUND', `no certificate ${body.emissionCertificateId}`);
        if (certificate.status !== 'verified') {
          throw new AppError('CERTIFICATE_NOT_VERIFIED', `certificate ${certificate.id} is ${certificate.status}`);
        }
        if (!(await d.households.get(body.recipientDid))) {
          throw new AppError('HOUSEHOLD_NOT_REGISTERED', `${body.recipientDid} is not a registered household`);
        }
        if (toMicro(body.value) !== toMicro(certificate.verifiedReduction)) {
          throw new AppError('VALUE_MISMATCH', 'value must equal the verified reduction of the certificate', {
            value: body.value,
            verifiedReduction: certificate.verifiedReduction,
          });
        }
        const voucher = await d.client.ask(voucherRef, voucherIdFor(certificate.id), {
          kind: 'issue',
          requestId: requestIdOf(ctx, who),
          recipientDid: body.recipientDid,
          emissionCertificateId: certificate.id,
          value: toMicro(body.value),
          attributes: body.attributes,
        });
        return json(201, voucherView(voucher, d.clock(), await d.codes.codeFor(voucher.id)));
      }),
    },
    {
      method: 'POST',
      path: '/v1/vouchers/redeem',
      doc: {
        summary: 'Redeem part of a voucher (supplier, signed)',
        tag: 'vouchers',
        body: redeemBody,
        responses: { 201: 'The redemption record' },
      },
      handler: guarded(g, ['supplier'], async (ctx, who) => {
        const { voucherCode, ...rest } = await jsonBody(ctx, redeemBody);
        const body = { ...rest, voucherId: rest.voucherId ?? (await voucherOfCode(d.codes, voucherCode ?? '')) };
        if (body.supplierDid !== who.did) {
          throw new AppError('SUPPLIER_DID_MISMATCH', 'supplierDid must be the DID of your API key');
        }
        await checkRedeemer(d, body.supplierDid, body.productId);
        // A retry of a redemption applied long ago is answered from its record; one still in
        // flight is answered by the voucher, which remembers its latest requests.
        const requestId = requestIdOf(ctx, who);
        const applied = ctx.headers['idempotency-key'] ? await d.reads.redemptionByRequest(requestId) : undefined;
        if (applied) {
          const same =
            applied.voucherId === body.voucherId &&
            applied.amount === toMicro(body.amount) &&
            applied.productId === body.productId;
          if (!same)
            throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different redemption');
          return json(201, redemptionView(applied));
        }
        const redemption = await redeem(d, {
          voucherId: body.voucherId,
          supplierDid: body.supplierDid,
          productId: body.productId,
          amount: toMicro(body.amount),
          requestId,
        });
        return json(201, redemptionView(redemption));
      }),
    },
    {
      method: 'POST',
      path: '/v1/vouchers/:id/revoke',
      doc: {
        summary: 'Revoke an active voucher (implementer)',
        tag: 'vouchers',
        body: revokeBody,
        responses: { 200: 'The voucher, revoked' },
      },
      handler: guarded(g, ['implementer', 'admin'], async (ctx) => {
        const body = await jsonBody(ctx, revokeBody);
        const id = await voucherIdOf(d.codes, ctx.params.id ?? '');
        const v = await d.client.ask(voucherRef, id, { kind: 'revoke', ...body });
        return json(200, voucherView(v, d.clock(), await d.codes.codeFor(v.id)));
      }),
    },
    {
      method: 'GET',
      path: '/v1/vouchers',
      doc: {
        summary: 'List vouchers (a household key: its own)',
        tag: 'vouchers',
        query: voucherListQuery,
        responses: { 200: '{items, total, limit, offset}' },
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'household'], async (ctx, who) => {
        const q = parseWith(voucherListQuery, queryObject(ctx.query), 'query');
        if (who.role === 'household' && q.recipientDid && q.recipientDid !== who.did) {
          throw new AppError('FORBIDDEN', 'a household key lists only its own vouchers');
        }
        const recipientDid = who.role === 'household' ? who.did : q.recipientDid;
        const { items, total } = await d.reads.list(
          { recipientDid, emissionCertificateId: q.emissionCertificateId, status: q.status },
          today(),
          q.limit,
          q.offset,
        );
        const now = d.clock();
        const codes = await d.codes.codesFor(items.map((v) => v.id));
        return json(200, {
          items: items.map((v) => voucherView(v, now, codes.get(v.id))),
          total,
          limit: q.limit,
          offset: q.offset,
        });
      }),
    },
    {
      method: 'GET',
      path: '/v1/vouchers/:id',
      doc: {
        summary: 'One voucher, by its id or its 10-digit code',
        tag: 'vouchers',
        responses: { 200: 'The voucher' },
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'household', 'supplier'], async (ctx, who) => {
        const v = await d.reads.get(await voucherIdOf(d.codes, ctx.params.id ?? ''));
        if (!visibleTo(who, v)) throw new AppError('VOUCHER_NOT_FOUND', `no voucher ${ctx.params.id}`);
        return json(200, voucherView(v, d.clock(), await d.codes.codeFor(v.id)));
      }),
    },
    {
      method: 'GET',
      path: '/v1/vouchers/:id/redemptions',
      doc: {
        summary: 'Redemptions of a voucher (a supplier: its own)',
        tag: 'vouchers',
        query: pageQuery,
        responses: { 200: '{items, total, limit, offset}' },
      },
      handler: guarded(g, ['admin', 'implementer', 'regulator', 'household', 'supplier'], async (ctx, who) => {
        const { limit, offset } = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const v = await d.reads.get(await voucherIdOf(d.codes, ctx.params.id ?? ''));
        if (!visibleTo(who, v)) throw new AppError('VOUCHER_NOT_FOUND', `no voucher ${ctx.params.id}`);
        // A supplier sees its own redemptions of the voucher, not its competitors'.
        const supplier = who.role === 'supplier' ? who.did : undefined;
        const page = await d.reads.redemptions(v.id, supplier, limit, offset);
        return json(200, { items: page.items.map(redemptionView), total: page.total, limit, offset });
      }),
    },
  ];
}
