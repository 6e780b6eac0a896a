import type { Asker } from '../../actors/runtime/asker.js';
import type { Intent, IntentResult } from '../../actors/ussd/index.js';
import { fromMicro, toMicro } from '../../actors/voucher/money.js';
import type { VoucherState } from '../../actors/voucher/messages.js';
import { voucherView } from '../../actors/voucher/representation.js';
import { AppError } from '../../errors/index.js';
import type { Product, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import {
  approvedProducts,
  checkRedeemer,
  redeem as redeemVoucher,
  type VoucherCodes,
  type VoucherPlans,
  type VoucherReads,
} from '../voucher/service.js';
import type { PhoneOwner } from './phone-directory.js';
import type { PinStore } from './pin-store.js';
import type { PhoneLanguage } from './phone-language.js';
import { catalogs } from '../../actors/ussd/catalog/index.js';
import { openSurveyFor, type SurveyReads } from '../survey/service.js';
import { checkAnswers } from '../../actors/survey/template.js';
import { responseIdFor } from '../../actors/survey-response/response-id.js';
import type { Sql } from '../../store/db.js';
import { surveyResponseRef } from '../../actors/survey-response/index.js';
import { isVoucherCode } from '../../common/voucher-code.js';
import type { UnknownCodeLimit } from './unknown-code-limit.js';
import { carryOutWallet, type WalletDeps } from './wallet-orders.js';

export interface WorkDeps {
  sql: Sql;
  languages: PhoneLanguage;
  surveys: SurveyReads;
  pins: PinStore;
  vouchers: VoucherReads;
  products: Registry<Product>;
  plans: VoucherPlans;
  suppliers: Registry<Supplier>;
  codes: VoucherCodes;
  unknownCodes: UnknownCodeLimit;
  client: Asker;
  clock: () => Date;
  /** The supplier wallet's conversions (wallet-orders.ts). */
  wallet: WalletDeps;
}

/**
 * Carries out what a session asked for, for the phone's owner only. Every order is safe to run
 * twice, since two requests of one session may both carry it out. Its id (the session actor's
 * `ctx.id()`: a hash of the session id and the message id) is unique across sessions: a PIN check
 * made for an order before answers as it did (a wrong PIN counts once, a changed PIN is not
 * checked against the new one), and a redemption's request id is `ussd:<order id>`, so the
 * voucher actor applies it once.
 */
export async function carryOut(
  d: WorkDeps,
  order: { id: string; intent: Intent },
  phone: string,
  owner: PhoneOwner,
): Promise<IntentResult> {
  const now = d.clock();
  const { intent } = order;
  switch (intent.op) {
    case 'setPin':
      if (!owner.did) return { ok: false, reason: 'not registered' };
      if (await d.pins.create(phone, owner.did, intent.pinMac, now)) return { ok: true };
      // Already set (another session was first, or this order runs twice): only the same PIN is a success.
      return d.pins.verify(phone, owner.did, intent.pinMac, now, order.id);
    case 'setLanguage':
      if (!(intent.lang in catalogs)) return { ok: false, reason: 'language not installed' };
      await d.languages.set(phone, intent.lang);
      return { ok: true };
    case 'changePin':
      if (!owner.did) return { ok: false, reason: 'not registered' };
      return d.pins.change(phone, owner.did, intent.currentMac, intent.nextMac, now, order.id);
    case 'listVouchers': {
      if (owner.audience !== 'household' || !owner.did) return { ok: true, data: { vouchers: [] } };
      const check = await d.pins.verify(phone, owner.did, intent.pinMac, now, order.id);
      if (!check.ok) return check;
      const today = now.toISOString().slice(0, 10);
      const { items } = await d.vouchers.list({ recipientDid: owner.did }, today, 20, 0);
      const codes = await d.codes.codesFor(items.map((v) => v.id));
      const vouchers = items.map((v: VoucherState) => {
        const view = voucherView(v, now, codes.get(v.id)) as {
          id: string;
          code: string;
          value: number;
          remainingBalance: number;
          status: string;
        };
        const { id, code, value, remainingBalance, status } = view;
        return { id, code, value, remainingBalance, status };
      });
      return { ok: true, data: { vouchers } };
    }
    case 'listProducts':
      return { ok: true, data: { products: await redeemableProducts(d, intent.voucherId) } };
    case 'findVoucher':
      return findVoucher(d, intent.ref, phone, owner, now);
    case 'redeem':
      return redeem(d, order.id, intent, phone, owner, now);
    case 'openSurvey': {
      if (owner.audience !== 'household' || !owner.did) return { ok: true, data: {} };
      const survey = await openSurveyFor(d.sql, owner.did);
      return { ok: true, data: survey ? { survey } : {} };
    }
    case 'submitSurvey':
      return submitSurvey(d, intent, owner);
    case 'wallet':
    case 'quoteConversion':
    case 'convert':
      return carryOutWallet({ ...d.wallet, pins: d.pins }, { id: order.id, intent }, phone, owner, now);
  }
}

/**
 * Every approved product, by name (a long list pages with "98 More" on the phone); those outside
 * the monitoring plan of the voucher's certificate are left out, as redemption would refuse them.
 */
async function redeemableProducts(
  d: WorkDeps,
  voucherId: string | undefined,
): Promise<Array<{ id: string; name: string }>> {
  const plan = voucherId ? (await d.plans.planOf(voucherId))?.plan : undefined;
  return approvedProducts(d.sql, plan?.approvedProducts);
}

/**
 * The voucher a supplier typed, by code (or id), and the products it may pay for. An unknown code
 * counts towards the phone's daily allowance (unknown-code-limit.ts); past it, no code is looked
 * up. Only a supplier looks vouchers up.
 */
async function findVoucher(
  d: WorkDeps,
  ref: string,
  phone: string,
  owner: PhoneOwner,
  now: Date,
): Promise<IntentResult> {
  if (owner.audience !== 'supplier' || !owner.did) return { ok: false, reason: 'only a supplier may redeem' };
  if (!isVoucherCode(ref)) {
    // An id: as long as a code, and not counted (no one types 30 characters to guess).
    return { ok: true, data: { voucherId: ref, products: await redeemableProducts(d, ref) } };
  }
  if (!(await d.unknownCodes.allowed(phone, now))) return { ok: false, reason: 'too many unknown codes' };
  const voucherId = await d.codes.voucherOf(ref);
  if (!voucherId) {
    await d.unknownCodes.count(phone, now);
    return { ok: false, reason: 'unknown voucher' };
  }
  return { ok: true, data: { voucherId, products: await redeemableProducts(d, voucherId) } };
}

async function submitSurvey(
  d: WorkDeps,
  intent: Extract<Intent, { op: 'submitSurvey' }>,
  owner: PhoneOwner,
): Promise<IntentResult> {
  if (owner.audience !== 'household' || !owner.did) return { ok: false, reason: 'only a household answers surveys' };
  const survey = await d.surveys.survey(intent.surveyId);
  if (!survey) return { ok: false, reason: 'the survey is gone' };
  const issues = checkAnswers(survey.template, intent.answers);
  if (issues.length > 0) return { ok: false, reason: `${issues.length} answer(s) do not fit the survey` };
  try {
    await d.client.ask(surveyResponseRef, responseIdFor(survey.id, owner.did), {
      kind: 'submit',
      surveyId: survey.id,
      householdId: owner.did,
      responses: intent.answers,
    });
    return { ok: true };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { ok: false, reason: err.message };
    throw err;
  }
}

async function redeem(
  d: WorkDeps,
  orderId: string,
  intent: Extract<Intent, { op: 'redeem' }>,
  phone: string,
  owner: PhoneOwner,
  now: Date,
): Promise<IntentResult> {
  if (owner.audience !== 'supplier' || !owner.did) return { ok: false, reason: 'only a supplier may redeem' };
  const check = await d.pins.verify(phone, owner.did, intent.pinMac, now, orderId);
  if (!check.ok) return check;
  try {
    // The same rules as over HTTP (the product may have been withdrawn while the session was open).
    await checkRedeemer(d, owner.did, intent.productId);
    const r = await redeemVoucher(d, {
      voucherId: intent.voucherId,
      supplierDid: owner.did,
      productId: intent.productId,
      amount: toMicro(intent.amount),
      requestId: `ussd:${orderId}`,
    });
    return { ok: true, data: { remainingBalance: fromMicro(r.remainingBalance) } };
  } catch (err) {
    // A refused rule (not found, expired, balance…) is the phone's answer; anything else is not.
    if (err instanceof AppError && err.status < 500) return { ok: false, reason: err.message };
    throw err;
  }
}
