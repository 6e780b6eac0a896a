import type { RouteSpec } from '../http/router.js';
import { json } from '../http/reply.js';
import type { LiveSessions } from '../../ussd/live-sessions.js';
import { ussdHop, type HopDeps } from '../ussd/hop.js';
import { readUssdRequest, ussdRequest } from '../ussd/request.js';
import { guarded, type Guards } from './guard.js';

/**
 * Spec 002: `POST /api/ussd` for the telecom aggregator (open: aggregators cannot sign requests;
 * put it behind the aggregator's IP allowlist at the edge), answered in `text/plain`;
 * `GET /api/ussd/sessions` for operators (admin or implementer key: it lists phone numbers).
 */
export function ussdRoutes(g: Guards, d: HopDeps & { live: LiveSessions }): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/api/ussd',
      doc: {
        summary: 'One USSD request from a telecom aggregator (JSON or form-encoded); answers CON/END text',
        tag: 'ussd',
        body: ussdRequest,
        public: true,
        responses: { 200: 'text/plain: `CON …` continues the session, `END …` ends it', 400: 'a malformed request' },
      },
      async handler(ctx) {
        const req = await readUssdRequest(ctx);
        const text = await ussdHop(d, req);
        return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: text };
      },
    },
    {
      method: 'GET',
      path: '/api/ussd/sessions',
      doc: {
        summary: 'Live USSD sessions (admin, implementer)',
        tag: 'ussd',
        responses: {
          200: '{sessions: [{sessionId, phoneNumber, serviceCode, state, startedAt, lastActivityAt}], count}',
        },
      },
      handler: guarded(g, ['admin', 'implementer'], async () => {
        const { sessions, count } = await d.live.list(d.clock());
        return json(200, { sessions, count });
      }),
    },
  ];
}
