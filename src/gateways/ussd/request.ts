import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { issuesOf, type HttpContext } from '../http/context.js';

/**
 * A USSD request: the spec's JSON body, or the same fields form-encoded as Africa's Talking sends
 * them (with `networkCode`). Unknown fields are ignored: aggregators add their own.
 */
export const ussdRequest = z.object({
  sessionId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 letters, digits, _ . : or -'),
  serviceCode: z
    .string()
    .trim()
    .regex(/^[0-9*#]{1,32}$/, 'must be a USSD code such as *1234#')
    .default('*1234#'),
  // International format (E.164), with or without the `+` some aggregators leave out; kept with
  // it, as the registries hold numbers, so `260971…` and `+260971…` are one phone (its owner, PIN,
  // rate limit). A national number (`0971…`) names no country: it is refused, not guessed.
  phoneNumber: z
    .string()
    .trim()
    .regex(/^\+?[1-9][0-9]{5,14}$/, 'must be a phone number in international format, such as +260971234567')
    .transform((n) => (n.startsWith('+') ? n : `+${n}`)),
  text: z
    .string()
    .max(1_000, 'is longer than 1000 characters')
    // Control characters (NUL included) are no phone's input.
    .refine(
      (t) => ![...t].some((ch) => ch.charCodeAt(0) < 0x20 && ch !== '\n' && ch !== '\t'),
      'holds control characters',
    )
    .default(''),
  networkCode: z.string().max(32).optional(),
});

export type UssdRequest = z.infer<typeof ussdRequest>;

/** Reads the body as JSON or form-encoded; a malformed request is a 400 (the only non-200 answer). */
export async function readUssdRequest(ctx: HttpContext): Promise<UssdRequest> {
  const raw = (await bodyOf(ctx)).toString('utf8');
  const type = (ctx.headers['content-type'] ?? '').toLowerCase();
  let data: unknown;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    data = Object.fromEntries(new URLSearchParams(raw));
  } else if (type === '' || /^application\/(.+\+)?json\b/.test(type)) {
    try {
      data = JSON.parse(raw);
    } catch {
      throw new AppError('INVALID_JSON', 'the body is not valid JSON');
    }
  } else {
    // A 400 like any malformed request (not 415): an aggregator is told one thing, "fix the request".
    throw new AppError('VALIDATION_FAILED', 'send the body as application/json or application/x-www-form-urlencoded');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new AppError('VALIDATION_FAILED', 'the body must be an object with sessionId, phoneNumber and text');
  }
  const result = ussdRequest.safeParse(data);
  if (!result.success) throw new AppError('VALIDATION_FAILED', 'invalid USSD request', issuesOf(result.error));
  return result.data;
}

/**
 * The body; one over MAX_BODY_BYTES is a malformed request like any other here (400, not the
 * 413 of other routes): an aggregator is told one thing, "fix the request".
 */
async function bodyOf(ctx: HttpContext): Promise<Buffer> {
  try {
    return await ctx.body();
  } catch (err) {
    if (err instanceof AppError && err.code === 'BODY_TOO_LARGE') {
      throw new AppError('VALIDATION_FAILED', `${err.message}; a USSD request is a few hundred bytes`);
    }
    throw err;
  }
}
