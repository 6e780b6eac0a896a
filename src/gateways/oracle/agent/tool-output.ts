/**
 * A tool's output as clients read it: a string. ixo's SDK declares `output?: string` on
 * `tool_call` events and transcript tool calls, and the reference runtime sends the tool
 * message's content, which is text (JSON text for a structured result). UI code slices and
 * parses it; an array or object there breaks it.
 */
export function toolOutputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? '';
}
