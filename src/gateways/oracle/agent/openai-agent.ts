import type { Agent, AgentSink, AgentTurn, AttachmentRef, ToolCallRecord } from './agent.js';
import type { HistoryMessage } from './history.js';
import { toolOutputText } from './tool-output.js';
import { runOracleTool } from './run-tool.js';
import { postForStream } from './http-stream.js';
import type { OracleTool } from './tools.js';
import { modelConnectionError, modelErrorForStatus } from './model-error.js';

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

interface Delta {
  content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

/** Tool rounds per turn at most (a model that keeps calling tools is stopped). */
const MAX_ROUNDS = 4;

const SYSTEM =
  "You are the hearth oracle for a household clean-energy benefit programme. Answer about the caller's own vouchers, balances and open surveys; call the tools to read them. Be brief.";

/** The system prompt: never left out, whatever the budget; it says when earlier turns were. */
function systemPrompt(turn: AgentTurn): string {
  const zone = turn.timezone ? ` The user's time zone is ${turn.timezone}.` : '';
  const omitted = turn.history?.omitted
    ? ` The ${turn.history.omitted} earliest messages of this conversation are not shown.`
    : '';
  return `${SYSTEM}${zone}${omitted}`;
}

/**
 * The conversation so far in the chat completions shape: an answer that called tools is the
 * assistant's tool_calls, each tool's result as a `tool` message, then its text.
 */
function historyMessages(history: readonly HistoryMessage[]): ChatMessage[] {
  return history.flatMap((m): ChatMessage[] => {
    if (m.role === 'user' || !m.toolCalls?.length) return [{ role: m.role, content: m.content }];
    return [
      {
        role: 'assistant',
        content: null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      },
      ...m.toolCalls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: c.output })),
      ...(m.content ? [{ role: 'assistant' as const, content: m.content }] : []),
    ];
  });
}

/**
 * An agent over an OpenAI-compatible chat completions API: streamed (`stream: true`), with the
 * oracle's tools declared as functions. Tool calls the model asks for run here, for the
 * authenticated caller, and their results go back to the model until it answers.
 */
export function openAiAgent(o: {
  baseUrl: string;
  apiKey?: string;
  model: string;
  tools: readonly OracleTool[];
  /** How long the model may stay silent (default 120 s). */
  idleTimeoutMs?: number;
}): Agent {
  const url = `${o.baseUrl.replace(/\/$/, '')}/chat/completions`;
  const declared = o.tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  return {
    async run(turn, sink) {
      // The client's browser tools and AG-UI actions are functions to the model like the oracle's own.
      const clientSide = [...(turn.browserTools ?? []), ...(turn.agActions ?? [])].map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description ?? '', parameters: t.schema ?? { type: 'object' } },
      }));
      const functions = [...declared, ...clientSide];
      const messages: ChatMessage[] = [
        { role: 'system', content: systemPrompt(turn) },
        ...historyMessages(turn.history?.messages ?? []),
        { role: 'user', content: withAttachments(turn.message, turn.attachments) },
      ];
      const calls: ToolCallRecord[] = [];
      let content = '';
      for (let round = 0; round < MAX_ROUNDS && !turn.signal.aborted; round++) {
        const res = await postForStream(
          url,
          {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
          },
          JSON.stringify({ model: turn.model ?? o.model, messages, tools: functions, stream: true }),
          turn.signal,
          o.idleTimeoutMs,
        ).catch((err: unknown) => {
          if (turn.signal.aborted) return undefined;
          throw err;
        });
        if (!res) break;
        if (res.statusCode !== 200) {
          res.resume();
          const retryAfter = res.headers['retry-after'];
          throw modelErrorForStatus(res.statusCode ?? 0, typeof retryAfter === 'string' ? retryAfter : undefined);
        }
        const pending = new Map<number, { id: string; name: string; args: string }>();
        for await (const delta of deltas(res, turn.signal)) {
          if (delta.content) {
            content += delta.content;
            await sink.token(delta.content);
          }
          for (const tc of delta.tool_calls ?? []) {
            const p = pending.get(tc.index) ?? { id: '', name: '', args: '' };
            p.id ||= tc.id ?? '';
            p.name += tc.function?.name ?? '';
            p.args += tc.function?.arguments ?? '';
            pending.set(tc.index, p);
          }
          if (turn.signal.aborted) break;
        }
        if (pending.size === 0 || turn.signal.aborted) {
          if (round === 0) await sink.route('answer');
          break;
        }
        const asked = [...pending.values()];
        await sink.route(asked.map((c) => c.name).join(','));
        messages.push({
          role: 'assistant',
          content: null,
          tool_calls: asked.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
        });
        for (const c of asked) {
          const record = await dispatch(c, o.tools, turn, sink);
          calls.push(record);
          messages.push({ role: 'tool', tool_call_id: c.id, content: toolOutputText(record.output) });
        }
      }
      return { content, toolCalls: calls };
    },
  };
}

/** Runs one call the model asked for: the oracle's tool, the browser's tool, or an AG-UI action. */
async function dispatch(
  c: { id: string; name: string; args: string },
  tools: readonly OracleTool[],
  turn: AgentTurn,
  sink: AgentSink,
): Promise<ToolCallRecord> {
  const args = parseArgs(c.args);
  const call = { toolCallId: c.id, toolName: c.name, args };
  if (turn.agActions?.some((a) => a.name === c.name)) {
    // `action_call` events (not `tool_call`) show it: the runner emits them around the wait.
    return { name: c.name, id: c.id, args, ...(await sink.action(call)) };
  }
  const tool = tools.find((t) => t.name === c.name);
  if (tool) return runOracleTool(tool, { id: c.id, args, did: turn.did }, sink);
  const inBrowser = turn.browserTools?.some((t) => t.name === c.name) ?? false;
  const status = inBrowser ? 'done' : 'error';
  await sink.toolCall({ name: c.name, id: c.id, args, status: 'isRunning', eventId: c.id });
  const output = inBrowser ? await sink.browserTool(call) : { error: `no tool ${c.name}` };
  await sink.toolCall({ name: c.name, id: c.id, args, status, output, eventId: c.id });
  return { name: c.name, id: c.id, args, status, output };
}

function parseArgs(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    return {};
  }
}

/** The `choices[0].delta` of each `data:` line of an SSE body, until `[DONE]` (or an abort). */
async function* deltas(body: AsyncIterable<Uint8Array>, signal: AbortSignal): AsyncGenerator<Delta> {
  const decoder = new TextDecoder();
  let buffered = '';
  let finished = false;
  try {
    for await (const chunk of body) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        // Read to the end of the body even so: a response read to its end leaves its
        // connection to be reused (one cut short takes its socket with it).
        if (data === '[DONE]') finished = true;
        if (finished) continue;
        try {
          const parsed = JSON.parse(data) as { choices?: Array<{ delta?: Delta }> };
          const delta = parsed.choices?.[0]?.delta;
          if (delta) yield delta;
        } catch {
          // a line that is not JSON is skipped, as OpenAI-compatible clients do
        }
      }
    }
  } catch (err) {
    // An abort cuts the body off mid-read: the turn ends with what it has, not with an error.
    if (signal.aborted) return;
    throw modelConnectionError(err);
  }
}

/**
 * The user's message with what they attached named after it: hearth cannot open Matrix media,
 * but the model can say what it was given rather than act as if nothing came with the message.
 */
function withAttachments(message: string, attachments: readonly AttachmentRef[] | undefined): string {
  if (!attachments?.length) return message;
  const list = attachments.map((a) => `- ${a.filename} (${a.mimetype}) ${a.ref}`).join('\n');
  return `${message}\n\n[The user attached these files; their contents are not available to you:\n${list}]`;
}
