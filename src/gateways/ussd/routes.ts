import { z } from 'zod';
import type { RouteSpec } from '../http/router.js';
import { json, type Reply } from '../http/reply.js';
import type { LiveSession, LiveSessions } from './live-sessions.js';
import { askErrors } from '../http/ask-errors.js';
import { endLine, ussdHop, type HopDeps } from './hop.js';
import { readUssdRequest, ussdRequest } from './request.js';
import { sessionEvents, ussdEvent, type SessionEventDeps } from './session-events.js';
import { guarded, type Guards } from '../auth/guard.js';

/** The session list's shape, for the OpenAPI document. */
const liveSessionList = z.strictObject({
  sessions: z.array(
    z.strictObject({
      sessionId: z.string(),
      phoneNumber: z.string(),
      serviceCode: z.string(),
      state: z.string(),
      startedAt: z.iso.datetime(),
      lastActivityAt: z.iso.datetime(),
    }) satisfies z.ZodType<LiveSession>,
  ),
  count: z.number().int(),
});

/** Aggregators give up on a callback after about 10 s; a hop that cannot answer by then ends. */
const HOP_DEADLINE_CAP_MS = 8_000;

const plain = (body: string): Reply => ({
  status: 200,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body,
});

/**
 * Spec 002: `POST /api/ussd` for the telecom aggregator (open: aggregators cannot sign requests;
 * put it behind the aggregator's IP allowlist at the edge), answered in `text/plain`, always 200:
 * an aggregator shows a person only `CON`/`END` text, and a 4xx reaches the handset as a network
 * error;
 * `GET /api/ussd/sessions` for operators (admin or implementer key: it lists phone numbers).
 */
export function ussdRoutes(
  g: Guards,
  d: HopDeps & { live: LiveSessions; outcome: SessionEventDeps['outcome'] },
  deadlineMs: number,
): RouteSpec[] {
  const onEvent = sessionEvents(d);
  return [
    {
      method: 'POST',
      path: '/api/ussd',
      doc: {
        operationId: 'answerUssdRequest',
        summary: 'One USSD request from a telecom aggregator (JSON or form-encoded); answers CON/END text',
        tag: 'ussd',
        body: ussdRequest,
        bodyTypes: ['application/json', 'application/x-www-form-urlencoded'],
        public: true,
        responseType: 'text/plain',
        responses: {
          200: '`CON …` continues the session, `END …` ends it. Every request is answered 200 `text/plain`: one that cannot be served (a malformed body, a missing field, no phone number, a service code not allowed, the rate limit, a store down) gets `END` and a short message, its reason logged with the request id and counted in `hearth_ussd_unserved_total{reason}`',
        },
      },
      // An aggregator drops a session on anything but 200, and cannot retry on another
      // gateway: a restart's drain still serves hops, and a store that stops answering ends the
      // session with a line the phone can show rather than a 503.
      serveWhileDraining: true,
      deadline: {
        ms: Math.min(deadlineMs, HOP_DEADLINE_CAP_MS),
        answer: () => {
          d.unserved('unavailable');
          return plain(endLine('common.unavailable'));
        },
      },
      async handler(ctx) {
        const read = await readUssdRequest(ctx, d.defaultCountry);
        if (!read.ok) {
          ctx.log.warn({ reason: read.reason, detail: read.detail, issues: read.issues }, 'ussd request not served');
          d.unserved(read.reason);
          return plain(endLine('common.badRequest'));
        }
        return plain(await ussdHop(d, read.req));
      },
    },
    {
      method: 'POST',
      path: '/api/ussd/events',
      doc: {
        operationId: 'receiveUssdEvent',
        summary: "An aggregator's end-of-session notification (Africa's Talking USSD events; form-encoded or JSON)",
        tag: 'ussd',
        body: ussdEvent,
        bodyTypes: ['application/x-www-form-urlencoded', 'application/json'],
        public: true,
        responseType: 'text/plain',
        responses: {
          200: '`OK`: the session is closed (a late request with its id gets END) and its outcome counted in `hearth_ussd_session_outcomes_total{status,service_code,network}`, once per session',
          400: 'a malformed notification (no sessionId or status, a body that is neither form nor JSON)',
        },
        errors: ['VALIDATION_FAILED', 'BODY_TOO_LARGE', ...askErrors],
      },
      // Like /api/ussd: a restart's drain still takes the aggregator's reports.
      serveWhileDraining: true,
      async handler(ctx) {
        await onEvent(ctx, ctx.log);
        return plain('OK');
      },
    },
    {
      method: 'GET',
      path: '/api/ussd/sessions',
      doc: {
        operationId: 'listUssdSessions',
        summary: 'Live USSD sessions (admin, implementer)',
        tag: 'ussd',
        responses: { 200: 'the live sessions, newest first (at most 1,000), and how many there are in all' },
        responseBody: liveSessionList,
      },
      handler: guarded(g, ['admin', 'implementer'], async () => {
        const { sessions, count } = await d.live.list(d.clock());
        return json(200, { sessions, count });
      }),
    },
  ];
}
