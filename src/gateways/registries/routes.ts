import type { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { DuplicateValueError, type Registry } from '../../store/registries/registry.js';
import type { Principal, Role } from '../auth/principal.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { pageOf, pageQuery } from '../http/pagination.js';
import { registryRecords } from './schemas.js';

export interface RegistryRoutes<T extends object> {
  /** Collection path, e.g. `/v1/households`. */
  path: string;
  /** Singular name for messages and operation ids, e.g. `household`; it names the record's schema too. */
  name: keyof typeof registryRecords;
  registry: Registry<T>;
  create: z.ZodType<T, unknown>;
  update: z.ZodType<Partial<T>, unknown>;
  readRoles: readonly Role[];
  writeRoles: readonly Role[];
  /** Lets a caller outside `readRoles` read one record (a household reading itself). */
  mayReadOne?: (who: Principal, id: string) => boolean;
}

/** `POST` (create), `GET` (list), `GET /:id`, `PATCH /:id` for one registry. */
export function registryRoutes<T extends object>(g: Guards, r: RegistryRoutes<T>): RouteSpec[] {
  const notFound = (id: string): AppError => new AppError('NOT_FOUND', `no ${r.name} ${id}`);
  const allRoles: Role[] = ['admin', 'implementer', 'supplier', 'regulator', 'household'];
  const record = registryRecords[r.name];
  // `createHousehold`, `listHouseholds`…: every registry's name takes an s in the plural.
  const one = r.name.charAt(0).toUpperCase() + r.name.slice(1);
  return [
    {
      method: 'POST',
      path: r.path,
      doc: {
        operationId: `create${one}`,
        summary: `Create a ${r.name}`,
        tag: 'registries',
        body: r.create,
        responses: { 201: `The ${r.name}` },
        responseBody: record,
        errors: ['ALREADY_EXISTS'],
      },
      handler: guarded(g, r.writeRoles, async (ctx) => {
        const record = await jsonBody(ctx, r.create);
        const created = await taken(r.name, () => r.registry.create(record));
        if (!created) throw new AppError('ALREADY_EXISTS', `a ${r.name} with this id already exists`);
        return json(201, created);
      }),
    },
    {
      method: 'GET',
      path: r.path,
      doc: {
        operationId: `list${one}s`,
        summary: `List ${r.name} records`,
        tag: 'registries',
        query: pageQuery,
        responses: { 200: `A page of ${r.name} records, newest first` },
        responseBody: pageOf(record),
        errors: ['VALIDATION_FAILED'],
      },
      handler: guarded(g, r.readRoles, async (ctx) => {
        const { limit, offset } = parseWith(pageQuery, queryObject(ctx.query), 'query');
        return json(200, await r.registry.list(limit, offset));
      }),
    },
    {
      method: 'GET',
      path: `${r.path}/:id`,
      doc: {
        operationId: `get${one}`,
        summary: `One ${r.name}`,
        tag: 'registries',
        responses: { 200: `The ${r.name}` },
        responseBody: record,
        errors: ['NOT_FOUND'],
      },
      handler: guarded(g, allRoles, async (ctx, who) => {
        const id = ctx.params.id ?? '';
        if (!r.readRoles.includes(who.role) && !r.mayReadOne?.(who, id)) {
          throw new AppError('FORBIDDEN', `this key may not read ${r.name} records`);
        }
        const found = await r.registry.get(id);
        if (!found) throw notFound(id);
        return json(200, found);
      }),
    },
    {
      method: 'PATCH',
      path: `${r.path}/:id`,
      doc: {
        operationId: `update${one}`,
        summary: `Update a ${r.name}`,
        tag: 'registries',
        body: r.update,
        responses: { 200: `The ${r.name}` },
        responseBody: record,
        errors: ['NOT_FOUND', 'ALREADY_EXISTS'],
      },
      handler: guarded(g, r.writeRoles, async (ctx) => {
        const id = ctx.params.id ?? '';
        const patch = await jsonBody(ctx, r.update);
        const updated = await taken(r.name, () => r.registry.update(id, patch));
        if (!updated) throw notFound(id);
        return json(200, updated);
      }),
    },
  ];
}

/** A unique value another record holds (a phone number registered twice) is a 409, not a 500. */
async function taken<R>(name: string, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof DuplicateValueError)) throw err;
    throw new AppError('ALREADY_EXISTS', `another ${name} already has this ${err.field}`, { field: err.field });
  }
}
