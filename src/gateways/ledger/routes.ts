import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { blockViewSchema, entryProofSchema, type LedgerReads } from '../../ledger/ledger-reads.js';
import { parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { pageOf, pageQuery } from '../http/pagination.js';

const heightParams = z.object({ height: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict();
const entryParams = z.object({ id: z.string().regex(/^[1-9][0-9]{0,17}$/, 'must be a positive integer') }).strict();

const auditors = ['admin', 'regulator'] as const;

/** The journal for auditors: blocks newest first, one block, and an entry with its inclusion proof. */
export function ledgerRoutes(g: Guards, reads: LedgerReads): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/v1/ledger/blocks',
      doc: {
        operationId: 'listLedgerBlocks',
        summary: 'Ledger blocks, newest first (regulator, admin)',
        tag: 'ledger',
        query: pageQuery,
        responses: { 200: 'A page of blocks, newest first; `total` is the height of the head' },
        responseBody: pageOf(blockViewSchema),
        errors: ['VALIDATION_FAILED'],
      },
      handler: guarded(g, auditors, async (ctx) => {
        const q = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const { items, total } = await reads.blocks(q.limit, q.offset);
        return json(200, { items, total, limit: q.limit, offset: q.offset });
      }),
    },
    {
      method: 'GET',
      path: '/v1/ledger/blocks/:height',
      doc: {
        operationId: 'getLedgerBlock',
        summary: 'One ledger block (regulator, admin)',
        tag: 'ledger',
        responses: { 200: 'The block' },
        responseBody: blockViewSchema,
        errors: ['VALIDATION_FAILED', 'LEDGER_BLOCK_NOT_FOUND'],
      },
      handler: guarded(g, auditors, async (ctx) => {
        const { height } = parseWith(heightParams, ctx.params, 'path');
        const block = await reads.block(height);
        if (!block) throw new AppError('LEDGER_BLOCK_NOT_FOUND', `no ledger block at height ${height}`);
        return json(200, block);
      }),
    },
    {
      method: 'GET',
      path: '/v1/ledger/entries/:id',
      doc: {
        operationId: 'getLedgerEntry',
        summary: 'A ledger entry with its block and Merkle inclusion path (regulator, admin)',
        tag: 'ledger',
        responses: { 200: 'The entry, the exact text hashed, its block, and its Merkle inclusion path' },
        responseBody: entryProofSchema,
        errors: ['VALIDATION_FAILED', 'LEDGER_ENTRY_NOT_FOUND', 'LEDGER_ENTRY_PENDING'],
      },
      handler: guarded(g, auditors, async (ctx) => {
        const { id } = parseWith(entryParams, ctx.params, 'path');
        const proof = await reads.entry(id);
        if (proof) return json(200, proof);
        if (await reads.isQueued(id)) {
          throw new AppError('LEDGER_ENTRY_PENDING', `ledger entry ${id} is waiting for its block; retry shortly`);
        }
        throw new AppError('LEDGER_ENTRY_NOT_FOUND', `no ledger entry ${id}`);
      }),
    },
  ];
}
