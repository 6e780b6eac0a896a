import { z } from 'zod';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';

const landing = z.strictObject({ status: z.literal('ok'), message: z.string(), timestamp: z.iso.datetime() });

/** `GET /`: the landing JSON of spec 001 (public). */
export function landingRoute(name: string): RouteSpec {
  return {
    method: 'GET',
    path: '/',
    // Never touches PostgreSQL: served while it is down.
    usesDatabase: false,
    doc: {
      operationId: 'getLanding',
      summary: 'Landing',
      tag: 'operations',
      public: true,
      responses: { 200: 'This oracle is running' },
      responseBody: landing,
    },
    handler: () =>
      Promise.resolve(json(200, { status: 'ok', message: `${name} is running`, timestamp: new Date().toISOString() })),
  };
}
