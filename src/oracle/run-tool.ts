import type { AgentSink, ToolCallRecord } from './agent.js';
import type { OracleTool } from './tools.js';

/**
 * Runs one of the oracle's own tools for the caller, as every agent does: `tool_call`
 * isRunning, the tool, `tool_call` done (or error, with the reason as output), and a
 * `render_component` when the tool names a component for its result.
 */
export async function runOracleTool(
  tool: OracleTool,
  call: { id: string; args: unknown; did: string },
  sink: AgentSink,
): Promise<ToolCallRecord & { status: 'done' | 'error' }> {
  const base = { name: tool.name, id: call.id, args: call.args, eventId: call.id };
  await sink.toolCall({ ...base, status: 'isRunning' });
  let record: ToolCallRecord & { status: 'done' | 'error' };
  try {
    record = { name: tool.name, id: call.id, args: call.args, status: 'done', output: await tool.run(call.did) };
  } catch (err) {
    // The model (or the embedded answer) sees the failure; the turn goes on.
    const error = err instanceof Error ? err.message : String(err);
    record = { name: tool.name, id: call.id, args: call.args, status: 'error', output: { error } };
  }
  await sink.toolCall({ ...base, status: record.status, output: record.output });
  if (tool.component && record.status === 'done') {
    await sink.render({ componentName: tool.component, args: { [tool.name]: record.output } });
  }
  return record;
}
