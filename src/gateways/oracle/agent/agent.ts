import type { History } from './history.js';

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

/** An AG-UI action the client declared (`agActions`): the client's handler runs it. */
export interface AgActionDeclaration extends BrowserToolDeclaration {
  /** The client draws a component for it (from the `action_call` events). */
  hasRender?: boolean;
}

/** A call the agent asks the client to run, over the session's sockets. */
export interface ClientCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

export interface AgentTurn {
  /** Browser tools the request declared; the model may call them through the socket gateway. */
  browserTools?: BrowserToolDeclaration[];
  /** AG-UI actions the request declared; called like browser tools, shown as `action_call`. */
  agActions?: AgActionDeclaration[];
  sessionId: string;
  requestId: string;
  /** The authenticated caller: tools act for this DID only. */
  did: string;
  message: string;
  /**
   * The files the user attached (Matrix media): their names and types, and where they are.
   * hearth does not fetch them (it holds no Matrix access); the model is told they are there.
   */
  attachments?: AttachmentRef[];
  timezone?: string;
  /** The model the message asked for (one the deployment offers); the agent's default otherwise. */
  model?: string;
  /** The session's conversation before this message, within the context budget. */
  history?: History;
  signal: AbortSignal;
}

export interface AttachmentRef {
  filename: string;
  mimetype: string;
  /** Its mxc:// (or http) URI, or the Matrix event that carries it. */
  ref: string;
}

/** What an agent reports while it works (the runner turns these into SSE / socket events). */
export interface AgentSink {
  token(text: string): Promise<void>;
  toolCall(call: ToolCallRecord & { status: 'isRunning' | 'done' | 'error'; eventId: string }): Promise<void>;
  /**
   * Asks the user's browser (a `browser_tool_call` to the session's sockets) and waits for its
   * `tool_result`; after 15 s the outcome is unknown (`FRONTEND_OUTCOME_UNKNOWN`).
   */
  browserTool(call: ClientCall): Promise<unknown>;
  /**
   * Runs an AG-UI action in the client: `action_call` (isRunning) to the stream and the session's
   * sockets, the `action_call_result` awaited 15 s, then `action_call` done or error.
   */
  action(call: ClientCall): Promise<{ status: 'done' | 'error'; output: unknown }>;
  /** A component the client may draw from a tool's result (`render_component`). */
  render(component: { componentName: string; args: unknown }): Promise<void>;
  /** Which way the agent went (`router.update`: the tools it chose, or a plain answer). */
  route(step: string): Promise<void>;
  /** A tool of the oracle failed: the runner logs why (the client and the model are told less). */
  toolFailed(name: string, err: unknown): void;
}

/** The agent behind the oracle: the embedded one, or an OpenAI-compatible provider. */
export interface Agent {
  run(turn: AgentTurn, sink: AgentSink): Promise<{ content: string; toolCalls: ToolCallRecord[] }>;
}
