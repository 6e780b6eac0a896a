/** A tool call as the transcript and the `tool_call` events show it. */
export interface ToolCallRecord {
  name: string;
  id: string;
  args: unknown;
  status?: string;
  output?: unknown;
}

export interface AgentTurn {
  sessionId: string;
  requestId: string;
  /** The authenticated caller: tools act for this DID only. */
  did: string;
  message: string;
  timezone?: string;
  signal: AbortSignal;
}

/** What an agent reports while it works (the runner turns these into SSE / socket events). */
export interface AgentSink {
  token(text: string): Promise<void>;
  toolCall(call: ToolCallRecord & { status: 'isRunning' | 'done' | 'error'; eventId: string }): Promise<void>;
}

/** The agent behind the oracle: the embedded one, or an OpenAI-compatible provider. */
export interface Agent {
  run(turn: AgentTurn, sink: AgentSink): Promise<{ content: string; toolCalls: ToolCallRecord[] }>;
}
