/** A tool call as the transcript and the `tool_call` events show it. */
export interface ToolCallRecord {
  name: string;
  id: string;
  args: unknown;
  status?: string;
  output?: unknown;
}

/** A tool the client declared in the request (`tools`): it runs in the user's browser. */
export interface BrowserToolDeclaration {
  name: string;
  description?: string;
  schema?: unknown;
}

export interface AgentTurn {
  /** Browser tools the request declared; the model may call them through the socket gateway. */
  browserTools?: BrowserToolDeclaration[];
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
  /**
   * Asks the user's browser (a `browser_tool_call` to the session's sockets) and waits for its
   * `tool_result`; after 15 s the outcome is unknown (`FRONTEND_OUTCOME_UNKNOWN`).
   */
  browserTool(call: { toolCallId: string; toolName: string; args: unknown }): Promise<unknown>;
}

/** The agent behind the oracle: the embedded one, or an OpenAI-compatible provider. */
export interface Agent {
  run(turn: AgentTurn, sink: AgentSink): Promise<{ content: string; toolCalls: ToolCallRecord[] }>;
}
