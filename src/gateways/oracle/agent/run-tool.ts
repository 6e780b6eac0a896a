import type { AgentSink, ToolCallRecord } from './agent.js';
import type { OracleTool } from './tools.js';

/**
 * Runs one of the oracle's own tools for the caller, as every agent does: `tool_call`
 * isRunning, the tool, `tool_call` done (or error, without the reason), and a
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
    // The model (or the embedded answer) sees that it failed, not why: the reason (a database
    // host, a query) is for the logs, not for the transcript or the client.
    sink.toolFailed(tool.name, err);
    const error = 'this tool could not run just now';
    record = { name: tool.name, id: call.id, args: call.args, status: 'error', output: { error } };
  }
  await sink.toolCall({ ...base, status: record.status, output: record.output });
  if (tool.component && record.status === 'done') {
    await sink.render({ componentName: tool.component, args: { [tool.name]: record.output } });
  }
  return record;
}
