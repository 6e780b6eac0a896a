import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.js';
import { causeOf, type Sql } from './db.js';

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export interface Migration {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

const defaultDir = fileURLToPath(new URL('./migrations/', import.meta.url));

export async function readMigrations(dir = defaultDir): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(`${dir}/${file}`, 'utf8');
      return {
        id: Number(file.slice(0, 3)),
        name: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

/** A migration file whose text no longer matches what was applied from it. */
class EditedMigration extends Error {
  constructor(name: string) {
    super(`${name} was edited after it was applied`);
  }
}

/** What the operator should do: the spec's remedy where it fits, the right one where it does not. */
function remedyOf(err: unknown): string {
  if (err instanceof EditedMigration) {
    return 'restore the applied text of that file and put the change in a new migration, then rebuild and re-run the migrations (npm run migrate)';
  }
  const code = (err as { code?: unknown } | null)?.code;
  // Missing database, no permission, or no connection: the spec's remedy.
  if (code === '3D000' || code === '42501' || (typeof code === 'string' && /^(08|28)|^E[A-Z]|^CONNECT/.test(code))) {
    return 'the database is missing or the user lacks write permission; fix it and rebuild, then re-run the migrations (npm run migrate)';
  }
  return 'a migration could not be applied (its SQL failed); fix it and rebuild, then re-run the migrations (npm run migrate)';
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, each in its own transaction,
 * under an advisory lock so that processes starting together do not race. Idempotent: a second
 * run applies nothing. A migration edited after it was applied is refused (its checksum moved).
 */
export async function migrate(sql: Sql, schema: string, log: Logger): Promise<string[]> {
  const migrations = await readMigrations();
  const applied: string[] = [];
  try {
    await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`hearth.migrate.${schema}`}))`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`;
      const done = new Map(
        (await tx<{ id: number; checksum: string }[]>`SELECT id, checksum FROM schema_migrations`).map((r) => [
          r.id,
          r.checksum,
        ]),
      );
      for (const m of migrations) {
        const seen = done.get(m.id);
        if (seen !== undefined) {
          if (seen !== m.checksum) throw new EditedMigration(m.name);
          continue;
        }
        await tx.unsafe(m.sql);
        await tx`INSERT INTO schema_migrations (id, name, checksum) VALUES (${m.id}, ${m.name}, ${m.checksum})`;
        applied.push(m.name);
        log.info({ migration: m.name, schema }, 'migration applied');
      }
    });
  } catch (err) {
    throw new MigrationError(`Migration failed (${causeOf(err)}): ${remedyOf(err)}`);
  }
  return applied;
}
