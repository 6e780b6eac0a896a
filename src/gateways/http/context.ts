import type { z } from 'zod';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../log.js';

/** One request, copied out of uWebSockets.js (whose request object dies at the first await). */
export interface HttpContext {
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly query: URLSearchParams;
  /** The query string as sent, without `?` (empty when none). */
  readonly rawQuery: string;
  readonly params: Readonly<Record<string, string>>;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly reqId: string;
  readonly log: Logger;
  /** The remote address, as text ('' once the response has ended or the client has gone). */
  readonly ip: string;
  /** Fires when the client goes away before the reply. */
  readonly signal: AbortSignal;
  /**
   * Fires when the client was answered without its handler (503: the deadline passed or
   * PostgreSQL went down) while the handler goes on: whatever the handler holds for this request
   * (an idempotency claim) must not make the client's retry wait for it.
   */
  readonly answered: AbortSignal;
  /** The raw body (at most MAX_BODY_BYTES). */
  body(): Promise<Buffer>;
}

export interface IssueDetail {
  path: string;
  message: string;
}

export function issuesOf(error: z.ZodError): IssueDetail[] {
  return error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

/** Parses and validates a JSON body: 415 for another media type, 400 for bad JSON or a failed schema. */
export async function jsonBody<S extends z.ZodType>(ctx: HttpContext, schema: S): Promise<z.infer<S>> {
  const raw = await ctx.body();
  const type = ctx.headers['content-type'] ?? '';
  if (raw.length > 0 && !/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
  }
  const text = raw.toString('utf8');
  // PostgreSQL cannot store U+0000 in jsonb or text: refuse it here rather than fail later.
  if (text.includes('\u0000') || /\\u0000/i.test(text)) {
    throw new AppError('VALIDATION_FAILED', 'the body contains a NUL character (\\u0000), which is not accepted');
  }
  let data: unknown;
  try {
    data = raw.length === 0 ? undefined : JSON.parse(text);
  } catch {
    throw new AppError('INVALID_JSON', 'the body is not valid JSON');
  }
  const problem = unsafeJson(data, 0);
  if (problem) throw new AppError('VALIDATION_FAILED', `the body is refused: ${problem}`);
  return parseWith(schema, data, 'body');
}

const MAX_JSON_DEPTH = 32;

/**
 * What no schema should have to think about: nesting deeper than 32 levels, strings that are
 * not well-formed UTF-16 (a lone surrogate, which PostgreSQL refuses), and `__proto__` keys
 * (which object building silently drops).
 */
function unsafeJson(value: unknown, depth: number): string | undefined {
  if (depth > MAX_JSON_DEPTH) return `nesting deeper than ${MAX_JSON_DEPTH} levels`;
  if (typeof value === 'string') return value.isWellFormed() ? undefined : 'a string with a lone surrogate';
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = unsafeJson(v, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '__proto__') return 'a key named __proto__';
      const p = unsafeJson(k, depth + 1) ?? unsafeJson(v, depth + 1);
      if (p) return p;
    }
  }
  return undefined;
}

export function parseWith<S extends z.ZodType>(schema: S, data: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) {
    // The first problem in the message itself: many clients show only `message`.
    const issues = issuesOf(result.error);
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    const what = first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}${more}` : '';
    throw new AppError('VALIDATION_FAILED', `invalid ${where}${what}`, issues);
  }
  return result.data;
}

/** The query as an object; a parameter given twice is ambiguous, so it is refused (400). */
export function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of query.entries()) {
    if (k in out) throw new AppError('VALIDATION_FAILED', `query parameter ${k} is given more than once`);
    out[k] = v;
  }
  return out;
}
