import { randomUUID } from 'node:crypto';
import type { Agent, AgentSink, AgentTurn, ToolCallRecord } from './agent.js';
import type { OracleTool } from './tools.js';

/**
 * The oracle's default agent: no network, no key. It answers questions about the caller's own
 * vouchers, balances and open surveys by calling tools over the stores the actors write, shows
 * each call as a `tool_call`, and streams its answer word by word.
 */
export function embeddedAgent(tools: readonly OracleTool[]): Agent {
  return {
    async run(turn: AgentTurn, sink: AgentSink) {
      const chosen = tools.filter((t) => t.trigger?.test(turn.message));
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
  // Plugins' tools: their results as they are.
  for (const [name, output] of Object.entries(results)) {
    if (name !== 'my_vouchers' && name !== 'open_surveys') parts.push(`${name}: ${JSON.stringify(output)}.`);
  }
  return parts.join(' ');
}
