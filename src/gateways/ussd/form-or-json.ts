/**
 * An aggregator's body as an object: form-encoded (Africa's Talking) or JSON (the spec; also
 * when no media type is given). A string says why it is none.
 */
export function formOrJson(body: Buffer, contentType: string): Record<string, unknown> | string {
  const raw = body.toString('utf8');
  const type = contentType.toLowerCase();
  let data: unknown;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    data = Object.fromEntries(new URLSearchParams(raw));
  } else if (type === '' || /^application\/(.+\+)?json\b/.test(type)) {
    try {
      data = JSON.parse(raw);
    } catch {
      return 'the body is not valid JSON';
    }
  } else {
    return 'the body is neither application/json nor application/x-www-form-urlencoded';
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return 'the body is not an object of fields';
  return data as Record<string, unknown>;
}
