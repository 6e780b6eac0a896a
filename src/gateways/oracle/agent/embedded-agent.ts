import { randomUUID } from 'node:crypto';
import type { Agent, AgentSink, AgentTurn, ToolCallRecord } from './agent.js';
import { runOracleTool } from './run-tool.js';
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
      await sink.route(chosen.length > 0 ? chosen.map((t) => t.name).join(',') : 'answer');
      const calls: ToolCallRecord[] = [];
      const results: Record<string, unknown> = {};
      for (const tool of chosen) {
        if (turn.signal.aborted) break;
        const record = await runOracleTool(tool, { id: randomUUID(), args: {}, did: turn.did }, sink);
        results[tool.name] = record.output;
        calls.push(record);
      }
      const answer = chosen.length > 0 ? compose(results, true) : (fromConversation(turn) ?? compose(results, false));
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

/** "My name is Zanele", "I'm Zanele", "call me Zanele": the name a user gave, if any. */
const INTRODUCTION = /\b(?:[Mm]y name is|[Cc]all me|I am called|I'm|I am)\s+(\p{Lu}[\p{L}'-]{0,40})/u;
const ASKS_NAME = /\bwhat(?:'s| is) my name\b|\bwho am i\b/i;

/**
 * What the embedded agent can answer from the conversation itself (it has no model): a name the
 * user gave, in this message or an earlier one of the session (the history it is given).
 */
function fromConversation(turn: AgentTurn): string | undefined {
  const introduced = INTRODUCTION.exec(turn.message)?.[1];
  if (introduced) return `Nice to meet you, ${introduced}. Ask me about your vouchers or surveys.`;
  if (!ASKS_NAME.test(turn.message)) return undefined;
  const said = [...(turn.history?.messages ?? [])]
    .reverse()
    .filter((m) => m.role === 'user')
    .map((m) => INTRODUCTION.exec(m.content)?.[1])
    .find((name) => name !== undefined);
  return said ? `Your name is ${said}.` : 'You have not told me your name in this conversation.';
}

function compose(results: Record<string, unknown>, usedTools: boolean): string {
  if (!usedTools) {
    return 'I can tell you about your clean-energy vouchers, their balances, and the surveys open for you. Ask me about your vouchers or surveys.';
  }
  const parts: string[] = [];
  const vouchers = results.my_vouchers as
    Array<{ id: string; status: string; value: number; remainingBalance: number }> | { error: string } | undefined;
  if (vouchers && !Array.isArray(vouchers)) parts.push('I could not read your vouchers just now; please ask again.');
  if (Array.isArray(vouchers)) {
    parts.push(
      vouchers.length === 0
        ? 'You have no vouchers yet.'
        : `You have ${vouchers.length} voucher${vouchers.length === 1 ? '' : 's'}: ${vouchers
            .map((v) => `${v.id} (${v.status}) with ${v.remainingBalance} of ${v.value} left`)
            .join('; ')}.`,
    );
  }
  const surveys = results.open_surveys as Array<{ id: string; questions: number }> | { error: string } | undefined;
  if (surveys && !Array.isArray(surveys)) parts.push('I could not read your surveys just now; please ask again.');
  if (Array.isArray(surveys)) {
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
