import type { CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import { ussdRef } from '../../actors/ussd/messages.js';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import type { Asker } from '../../actors/runtime/asker.js';
import { issuesOf, type HttpContext } from '../http/context.js';
import { dialled } from './dial-through.js';
import type { LiveSessions } from './live-sessions.js';
import { formOrJson } from './form-or-json.js';
import { normalizePhone } from './phone-number.js';

/**
 * Africa's Talking's end-of-session notification ("USSD events"), posted form-encoded to a
 * second callback once a session is over, whatever ended it: `sessionId`, `phoneNumber`,
 * `status` (`Success`, `Incomplete`, `Failed`), `hopsCount`, `durationInMillis`,
 * `errorMessage`, and more. JSON is read too. Unknown fields are ignored.
 */
export const ussdEvent = z.object({
  sessionId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 letters, digits, _ . : or -'),
  status: z.string().trim().min(1, 'is empty').max(32, 'is longer than 32 characters'),
  // Required: a report closes only the session of the phone it names (the route is open, and
  // session ids can be seen by others along the way).
  phoneNumber: z.string().trim().min(1, 'is empty').max(32),
  serviceCode: z.string().trim().max(32).optional(),
  networkCode: z.string().trim().max(32).optional(),
  hopsCount: z.coerce.number().int().min(0).max(1_000_000).optional(),
  durationInMillis: z.coerce.number().int().min(0).optional(),
  errorMessage: z.string().max(1_000).optional(),
});

/** The statuses Africa's Talking sends; any other is counted as `other` (labels stay few). */
const STATUSES = new Set(['success', 'incomplete', 'failed']);
/** Networks (MCC+MNC) counted by name at most: past them, `other`. The route is open. */
const MAX_NETWORKS = 64;

export interface SessionEventDeps {
  client: Asker;
  live: LiveSessions;
  serviceCodes: readonly string[];
  defaultCountry: CountryCode;
  outcome: (labels: { status: string; service_code: string; network: string }) => void;
  clock: () => Date;
}

/**
 * `POST /api/ussd/events`: closes the session the report names (a late hop with its id gets
 * END; it leaves the live list) and counts its outcome by status, service code and network in
 * `hearth_ussd_session_outcomes_total`, once per session however often the report is retried.
 * A report of a session hearth never saw (it failed before reaching the callback) is counted
 * each time it comes.
 */
export function sessionEvents(d: SessionEventDeps) {
  const networks = new Set<string>();
  const networkLabel = (code: string | undefined): string => {
    if (!code || !/^[0-9]{5,6}$/.test(code)) return 'unknown';
    if (networks.has(code)) return code;
    if (networks.size >= MAX_NETWORKS) return 'other';
    networks.add(code);
    return code;
  };

  return async function onEvent(ctx: HttpContext, log: Logger): Promise<void> {
    const event = parse(await ctx.body(), ctx.headers['content-type'] ?? '');
    const phoneNumber = normalizePhone(event.phoneNumber, d.defaultCountry);
    if (phoneNumber === undefined) {
      throw new AppError('VALIDATION_FAILED', 'invalid USSD event', [
        { path: 'phoneNumber', message: 'is no phone number' },
      ]);
    }
    const closed = await d.client.ask(ussdRef, event.sessionId, { kind: 'close', status: event.status, phoneNumber });
    const base = event.serviceCode ? dialled(event.serviceCode, '', d.serviceCodes)?.serviceCode : undefined;
    const status = STATUSES.has(event.status.toLowerCase()) ? event.status.toLowerCase() : 'other';
    if (!closed.known || closed.first) {
      d.outcome({
        status,
        service_code: (closed.known ? closed.serviceCode : base) ?? 'unknown',
        network: networkLabel(event.networkCode),
      });
    }
    if (closed.known) {
      const at = d.clock().toISOString();
      // Out of the live list at once (its own phone only: touch checks the owner).
      await d.live.touch(
        {
          sessionId: event.sessionId,
          phoneNumber: closed.phoneNumber,
          serviceCode: closed.serviceCode,
          state: 'ended',
          startedAt: at,
          lastActivityAt: at,
        },
        true,
      );
    }
    log.info(
      {
        sessionId: event.sessionId,
        status: event.status,
        known: closed.known,
        hops: event.hopsCount,
        durationMs: event.durationInMillis,
        ...(event.errorMessage ? { errorMessage: event.errorMessage } : {}),
      },
      'ussd session ended',
    );
  };
}

function parse(body: Buffer, contentType: string): z.infer<typeof ussdEvent> {
  const data = formOrJson(body, contentType);
  if (typeof data === 'string') throw new AppError('VALIDATION_FAILED', data);
  const result = ussdEvent.safeParse(data);
  if (!result.success) throw new AppError('VALIDATION_FAILED', 'invalid USSD event', issuesOf(result.error));
  return result.data;
}
