import { randomUUID } from 'node:crypto';
import { fromMicro } from '../actors/voucher/money.js';
import type { VoucherState } from '../actors/voucher/messages.js';
import type { Sql } from '../store/db.js';
import type { VoucherReads } from '../store/voucher-reads.js';
import { openSurveyFor } from '../ussd/open-survey.js';
import type { Agent, AgentSink, AgentTurn, ToolCallRecord } from './agent.js';

type Tool = { name: string; run: (did: string) => Promise<unknown>; matches: RegExp };

/**
 * The oracle's default agent: no network, no key. It answers questions about the caller's own
 * vouchers, balances and open surveys by calling tools over the stores the actors write, shows
 * each call as a `tool_call`, and streams its answer word by word.
 */
export function embeddedAgent(d: { sql: Sql; vouchers: VoucherReads; clock: () => Date }): Agent {
  const tools: Tool[] = [
    {
      name: 'my_vouchers',
      matches: /voucher|balance|redeem|how much|credit/i,
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
      matches: /survey|question/i,
      run: async (did) => {
        const s = await openSurveyFor(d.sql, did);
        return s ? [{ id: s.id, questions: s.questions.length }] : [];
      },
    },
  ];

  return {
    async run(turn: AgentTurn, sink: AgentSink) {
      const chosen = tools.filter((t) => t.matches.test(turn.message));
      const calls: ToolCallRecord[] = [];
      const results: Record<string, unknown> = {};
      for (const tool of chosen) {
        if (turn.signal.aborted) break;
        const eventId = randomUUID();
        await sink.toolCall({ name: tool.name, id: eventId, args: {}, status: 'isRunning', eventId });
        const output = await tool.run(turn.did);
        results[tool.name] = output;
        calls.push({ name: tool.name, id: eventId, args: {}, status: 'done', output });
        await sink.toolCall({ name: tool.name, id: eventId, args: {}, status: 'done', output, eventId });
      }
      const answer = compose(results, chosen.length > 0);
      let content = '';
      for (const word of answer.split(/(?<= )/)) {
        if (turn.signal.aborted) break;
        content += word;
        await sink.token(word);
      }
      return { content, toolCalls: calls };
    },
  };
}

function compose(results: Record<string, unknown>, usedTools: boolean): string {
  if (!usedTools) {
    return 'I can tell you about your clean-energy vouchers, their balances, and the surveys open for you. Ask me about your vouchers or surveys.';
  }
  const parts: string[] = [];
  const vouchers = results.my_vouchers as
    Array<{ id: string; status: string; value: number; remainingBalance: number }> | undefined;
  if (vouchers) {
    parts.push(
      vouchers.length === 0
        ? 'You have no vouchers yet.'
        : `You have ${vouchers.length} voucher${vouchers.length === 1 ? '' : 's'}: ${vouchers
            .map((v) => `${v.id} (${v.status}) with ${v.remainingBalance} of ${v.value} left`)
            .join('; ')}.`,
    );
  }
  const surveys = results.open_surveys as Array<{ id: string; questions: number }> | undefined;
  if (surveys) {
    parts.push(
      surveys.length === 0
        ? 'There is no survey open for you right now.'
        : `Survey ${surveys[0]!.id} is open for you, with ${surveys[0]!.questions} questions.`,
    );
  }
  return parts.join(' ');
}
