import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../../src/errors/store-unavailable.js';
import { sessionTarget } from '../../../src/store/db.js';

describe('several PostgreSQL hosts (pg_auto_failover)', () => {
  it('asks every connection for a read-write server when DATABASE_URL lists several hosts', () => {
    expect(sessionTarget('postgres://u:p@db1:5432,db2:5432/hearth')).toEqual({ target_session_attrs: 'read-write' });
    expect(sessionTarget('postgresql://db1,db2/hearth?sslmode=require')).toEqual({
      target_session_attrs: 'read-write',
    });
  });

  it('leaves one host alone, and a URL that chose its own target', () => {
    expect(sessionTarget('postgres://postgres@127.0.0.1:5432/test')).toEqual({});
    expect(sessionTarget('postgres://db1,db2/hearth?target_session_attrs=any')).toEqual({});
    // A comma in the password is not a second host.
    expect(sessionTarget('postgres://u:a%2Cb@db1/hearth')).toEqual({});
  });

  it('answers a statement that reached a read-only server as an outage (503), not a bug (500)', () => {
    const readOnly = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' });
    expect(isStoreUnavailable(readOnly)).toBe(true);
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isStoreUnavailable(unique)).toBe(false);
  });
});
