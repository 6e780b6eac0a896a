/**
 * Canonical JSON: object keys sorted, no whitespace. A ledger entry is hashed over these bytes,
 * so the same entry always has the same hash whatever order its fields were built in.
 *
 * Built by appending to one string, without the intermediate arrays of a map/filter/join: the
 * ledger writer canonicalises every entry it chains, and those arrays were a third of its cost
 * in the worker's CPU profile. The bytes are those of the definition above, unchanged (the test
 * holds them to it).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // undefined, functions and symbols have no JSON form: null here, dropped inside objects.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields).sort();
  let out = '{';
  for (const k of keys) {
    const v = fields[k];
    if (v === undefined) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
  }
  return out + '}';
}
