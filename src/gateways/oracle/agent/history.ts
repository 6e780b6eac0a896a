import { toolOutputText } from './tool-output.js';

/** A transcript entry as the chat actor stored it (the fields the model needs). */
export interface TranscriptEntry {
  type: 'human' | 'ai';
  content: string;
  toolCalls?: ReadonlyArray<{ name: string; id: string; args: unknown; output?: unknown }>;
}

/** One message of the conversation so far, as an agent gets it. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  /** The tools an assistant turn called before it answered, with their results as text. */
  toolCalls?: Array<{ id: string; name: string; args: unknown; output: string }>;
}

export interface History {
  messages: HistoryMessage[];
  /** Earlier messages left out to stay within the budget (the agent may say so to the model). */
  omitted: number;
}

/**
 * The session's conversation before the new message, within `budgetChars` characters (message
 * text, tool arguments and results). Whole turns — a user message and the answer after it — are
 * kept from the newest back; the oldest go first, never half a turn, so a tool call is never
 * shown without its result. The system prompt and the new message are not counted: they always go.
 */
export function historyWithin(
  entries: readonly TranscriptEntry[],
  budgetChars: number,
  /** Messages in the whole transcript, when `entries` are only its last ones. */
  total = entries.length,
): History {
  // A window cut from a longer transcript may open inside a turn: that turn's answer goes too.
  const first = total > entries.length ? entries.findIndex((e) => e.type === 'human') : 0;
  const turns: HistoryMessage[][] = [];
  for (const e of first < 0 ? [] : entries.slice(first)) {
    const message = toMessage(e);
    if (e.type === 'human' || turns.length === 0) turns.push([message]);
    else turns[turns.length - 1]!.push(message);
  }
  let left = budgetChars;
  let kept = turns.length;
  while (kept > 0) {
    const cost = turns[kept - 1]!.reduce((n, m) => n + sizeOf(m), 0);
    if (cost > left) break;
    left -= cost;
    kept--;
  }
  const messages = turns.slice(kept).flat();
  return { messages, omitted: total - messages.length };
}

function toMessage(e: TranscriptEntry): HistoryMessage {
  if (e.type === 'human') return { role: 'user', content: e.content };
  const toolCalls = (e.toolCalls ?? []).map((c) => ({
    id: c.id,
    name: c.name,
    args: c.args ?? {},
    output: toolOutputText(c.output ?? null),
  }));
  return { role: 'assistant', content: e.content, ...(toolCalls.length ? { toolCalls } : {}) };
}

function sizeOf(m: HistoryMessage): number {
  const calls = m.toolCalls ?? [];
  return (
    m.content.length + calls.reduce((n, c) => n + c.name.length + JSON.stringify(c.args).length + c.output.length, 0)
  );
}
