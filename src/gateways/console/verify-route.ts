import { verifyJournal } from '../../ledger/verify.js';
import type { Sql } from '../../store/db.js';
import { AppError } from '../../errors/index.js';
import { guarded, type Guards } from '../auth/guard.js';
import { SSE_HEADERS, sseFrame } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import type { OperatorActions } from '../operators/service.js';

/**
 * `GET /v1/operator/ledger/verify` (admin): runs the check `npm run ledger:verify` runs
 * (ledger/verify.ts, one read-only snapshot) and streams its progress as server-sent events:
 * `start {height}`, `progress {blocks, height}` after each page of blocks, then `result`
 * (`{ok, blocks, entries, head?, bad?}`). One at a time per gateway (it reads the whole chain);
 * each run is recorded as an operator action with its outcome.
 */
export function verifyRoute(g: Guards, d: { sql: Sql; actions: OperatorActions }): RouteSpec {
  let running = false;
  return {
    method: 'GET',
    path: '/v1/operator/ledger/verify',
    deadline: 'none',
    doc: {
      summary: 'Verify the ledger journal, with progress (admin; server-sent events; recorded)',
      operationId: 'verifyLedger',
      tag: 'operators',
      responseType: 'text/event-stream',
      responses: {
        200: '`event: start` {height}, `event: progress` {blocks, height}, `event: result` {ok, blocks, entries, head?, bad?}',
      },
      // OVERLOADED: a verify is running on this gateway already.
      errors: ['OVERLOADED'],
    },
    handler: guarded(g, ['admin'], (_ctx, who) => {
      if (running) throw new AppError('OVERLOADED', 'a ledger verify is running on this gateway already; wait for it');
      running = true;
      return Promise.resolve({
        status: 200,
        headers: SSE_HEADERS,
        stream: async (write) => {
          try {
            const [head] = await d.sql<{ height: string }[]>`SELECT height FROM ledger_head WHERE id = 1`;
            const height = Number(head?.height ?? 0);
            write(sseFrame('start', { height }));
            const result = await verifyJournal(d.sql, {
              progress: (blocks) => write(sseFrame('progress', { blocks, height })),
            });
            await d.actions.record(who.keyId, 'ledger.verify', 'ledger', {
              ok: result.ok,
              blocks: result.blocks,
              bad: result.bad,
            });
            write(sseFrame('result', result));
          } catch (err) {
            write(sseFrame('error', { message: err instanceof Error ? err.message : String(err) }));
          } finally {
            running = false;
          }
        },
      });
    }),
  };
}
