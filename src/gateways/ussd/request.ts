import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { issuesOf, type HttpContext, type IssueDetail } from '../http/context.js';
import { formOrJson } from './form-or-json.js';
import { normalizePhone } from './phone-number.js';

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
  // E.164 with or without its `+`, or a national number of USSD_DEFAULT_COUNTRY (phone-number.ts).
  phoneNumber: z.string().trim().min(1, 'is empty').max(32, 'is longer than 32 characters'),
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

/** A request as the gateway serves it: the phone number in E.164, with its `+`. */
export type UssdRequest = z.infer<typeof ussdRequest>;

/** Why a request was not served: a label of `hearth_ussd_unserved_total`. */
export type Unserved = 'malformed' | 'phone' | 'service_code' | 'rate_limited' | 'unavailable';

export type ReadUssd =
  { ok: true; req: UssdRequest } | { ok: false; reason: 'malformed' | 'phone'; detail: string; issues?: IssueDetail[] };

/**
 * Reads the body as JSON or form-encoded. What cannot be served (no body, another media type,
 * bad JSON, a missing field, a number that is no phone number, a body past MAX_BODY_BYTES) is
 * said, not thrown: the route answers it with an END screen, as an aggregator shows a person
 * only `CON`/`END` text.
 */
export async function readUssdRequest(ctx: HttpContext, country: CountryCode): Promise<ReadUssd> {
  const malformed = (detail: string, issues?: IssueDetail[]): ReadUssd => ({
    ok: false,
    reason: 'malformed',
    detail,
    ...(issues ? { issues } : {}),
  });
  let body: Buffer;
  try {
    body = await ctx.body();
  } catch (err) {
    if (err instanceof AppError && err.code === 'BODY_TOO_LARGE') return malformed(err.message);
    throw err;
  }
  const data = formOrJson(body, ctx.headers['content-type'] ?? '');
  if (typeof data === 'string') return malformed(data);
  const result = ussdRequest.safeParse(data);
  if (!result.success) return malformed('a field is missing or invalid', issuesOf(result.error));
  const phoneNumber = normalizePhone(result.data.phoneNumber, country);
  if (phoneNumber === undefined) return { ok: false, reason: 'phone', detail: 'phoneNumber is no phone number' };
  return { ok: true, req: { ...result.data, phoneNumber } };
}
