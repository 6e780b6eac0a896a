import type { z } from 'zod';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../log.js';

/** One request, copied out of uWebSockets.js (whose request object dies at the first await). */
export interface HttpContext {
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly reqId: string;
  readonly log: Logger;
  /** The remote address, as text. */
  readonly ip: string;
  /** Fires when the client goes away before the reply. */
  readonly signal: AbortSignal;
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
  return parseWith(schema, data, 'body');
}

export function parseWith<S extends z.ZodType>(schema: S, data: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw new AppError('VALIDATION_FAILED', `invalid ${where}`, issuesOf(result.error));
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
