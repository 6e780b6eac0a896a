import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';

/** `GET /`: the landing JSON of spec 001 (public). */
export function landingRoute(name: string): RouteSpec {
  return {
    method: 'GET',
    path: '/',
    // Never touches PostgreSQL: served while it is down.
    usesDatabase: false,
    doc: { summary: 'Landing', tag: 'operations', public: true, responses: { 200: '{status, message, timestamp}' } },
    handler: () =>
      Promise.resolve(json(200, { status: 'ok', message: `${name} is running`, timestamp: new Date().toISOString() })),
  };
}
