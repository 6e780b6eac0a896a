import type { Asker } from '../../actors/runtime/asker.js';
import type { VoucherState } from '../../actors/voucher/messages.js';
import { toMicro } from '../../actors/voucher/money.js';
import {
  redemptionView,
  redemptionViewSchema,
  voucherView,
  voucherViewSchema,
} from '../../actors/voucher/representation.js';
import { AppError } from '../../errors/index.js';
import type { Certificate, Household, Product, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherReads } from './voucher-reads.js';
import type { Principal } from '../auth/principal.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { pageOf, pageQuery } from '../http/pagination.js';
import { askErrors } from '../http/ask-errors.js';
import { requestIdOf } from '../http/operation-id.js';
import { checkDates, issueBody, redeemBody, revokeBody, voucherListQuery } from './schemas.js';
import type { VoucherPlans } from './product-rule.js';
import { checkRedeemer, issueVoucher, redeem } from './service.js';
import { voucherRef } from '../../actors/voucher/messages.js';
import { isVoucherCode } from '../../common/voucher-code.js';
import type { VoucherCodes } from './voucher-codes.js';

export interface VoucherDeps {
  client: Asker;
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
        operationId: 'issueVoucher',
        summary: 'Issue a voucher against a verified certificate (implementer)',
        tag: 'vouchers',
        body: issueBody,
        responses: { 201: 'The voucher' },
        responseBody: voucherViewSchema,
        errors: [
          'INVALID_DATES',
          'CERTIFICATE_NOT_FOUND',
          'CERTIFICATE_NOT_VERIFIED',
          'HOUSEHOLD_NOT_REGISTERED',
          'VALUE_MISMATCH',
          'CERTIFICATE_ALREADY_USED',
          ...askErrors,
        ],
      },
      handler: guarded(g, ['implementer', 'admin'], async (ctx, who) => {
        const body = await jsonBody(ctx, issueBody);
        checkDates(body.attributes);
        const voucher = await issueVoucher(d, {
          recipientDid: body.recipientDid,
          emissionCertificateId: body.emissionCertificateId,
          value: body.value,
          attributes: body.attributes,
          requestId: requestIdOf(ctx, who),
        });
        return json(201, voucherView(voucher, d.clock(), await d.codes.codeFor(voucher.id)));
      }),
    },
    {
      method: 'POST',
      path: '/v1/vouchers/redeem',
      doc: {
        operationId: 'redeemVoucher',
        summary: 'Redeem part of a voucher (supplier, signed)',
        tag: 'vouchers',
        body: redeemBody,
        responses: { 201: 'The redemption record' },
        responseBody: redemptionViewSchema,
        errors: [
          'VOUCHER_NOT_FOUND',
          'SUPPLIER_DID_MISMATCH',
          'SUPPLIER_NOT_AUTHORIZED',
          'PRODUCT_NOT_APPROVED',
          'VOUCHER_NOT_ACTIVE',
          'VOUCHER_EXPIRED',
          'INSUFFICIENT_BALANCE',
          ...askErrors,
        ],
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
        const applied = ctx.headers['idempotency-key']
          ? await d.reads.redemptionByRequest(body.voucherId, requestId)
          : undefined;
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
        operationId: 'revokeVoucher',
        summary: 'Revoke an active voucher (implementer)',
        tag: 'vouchers',
        body: revokeBody,
        responses: { 200: 'The voucher, revoked' },
        responseBody: voucherViewSchema,
        errors: ['VOUCHER_NOT_FOUND', 'VOUCHER_NOT_ACTIVE', ...askErrors],
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
        operationId: 'listVouchers',
        summary: 'List vouchers (a household key: its own)',
        tag: 'vouchers',
        query: voucherListQuery,
        responses: { 200: 'A page of vouchers, newest first' },
        responseBody: pageOf(voucherViewSchema),
        errors: ['VALIDATION_FAILED'],
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
        operationId: 'getVoucher',
        summary: 'One voucher, by its id or its 10-digit code',
        tag: 'vouchers',
        responses: { 200: 'The voucher' },
        responseBody: voucherViewSchema,
        errors: ['VOUCHER_NOT_FOUND'],
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
        operationId: 'listVoucherRedemptions',
        summary: 'Redemptions of a voucher (a supplier: its own)',
        tag: 'vouchers',
        query: pageQuery,
        responses: { 200: 'A page of redemptions, in the order they were made' },
        responseBody: pageOf(redemptionViewSchema),
        errors: ['VALIDATION_FAILED', 'VOUCHER_NOT_FOUND'],
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
