import type { VoucherState } from '../../../actors/voucher/messages.js';
import { fromMicro } from '../../../actors/voucher/money.js';
import type { Sql } from '../../../store/db.js';
import type { VoucherReads } from '../../voucher/service.js';
import { openSurveyFor } from '../../survey/service.js';

/** A tool the agent may call; it acts for the authenticated caller only. */
export interface OracleTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (none here: the caller is the subject). */
  parameters: Record<string, unknown>;
  /** Questions that make the embedded agent call it (a language model decides by itself). */
  trigger?: RegExp;
  /** The component a client may draw from the result (a `render_component` event follows it). */
  component?: string;
  run(did: string): Promise<unknown>;
}

/** The oracle's tools over what the voucher and survey actors wrote. */
export function oracleTools(d: { sql: Sql; vouchers: VoucherReads; clock: () => Date }): OracleTool[] {
  const none = { type: 'object', properties: {}, additionalProperties: false };
  return [
    {
      name: 'my_vouchers',
      description: "The caller's vouchers: id, status, value and remaining balance.",
      parameters: none,
      trigger: /voucher|balance|redeem|how much|credit/i,
      component: 'VoucherList',
      run: async (did) => {
        const today = d.clock().toISOString().slice(0, 10);
        const { items } = await d.vouchers.list({ recipientDid: did }, today, 20, 0);
        return items.map((v: VoucherState) => ({
          id: v.id,
          status: v.status,
          value: fromMicro(v.value),
          remainingBalance: fromMicro(v.remainingBalance),
        }));
      },
    },
    {
      name: 'open_surveys',
      description: 'The survey open for the caller (its id and number of questions), if any.',
      parameters: none,
      trigger: /survey|question/i,
      component: 'OpenSurvey',
      run: async (did) => {
        const s = await openSurveyFor(d.sql, did);
        return s ? [{ id: s.id, questions: s.questions.length }] : [];
      },
    },
  ];
}
