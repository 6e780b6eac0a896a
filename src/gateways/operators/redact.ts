/** Body fields never shown to an operator: PIN hashes, sealed texts, tokens (a name match, at any depth). */
const SECRET = /pin|secret|token|password|mnemonic|sealed|key$/i;

/** A message body as an operator may see it (dead letters, the console's tail): every secret-named field replaced. */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET.test(k) ? '[redacted]' : redact(v)]));
}

/** A mailbox entry's body (JSON as stored) redacted; a body that is not JSON is not shown. */
export function redactedBody(body: string): unknown {
  try {
    return redact(JSON.parse(body));
  } catch {
    return '[not JSON]';
  }
}
