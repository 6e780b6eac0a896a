import { describe, expect, it } from 'vitest';
import { householdTable, supplierTable, type Household, type Supplier } from '../../src/store/registries/records.js';
import {
  DuplicateValueError,
  type RegistryRows,
  type RegistryTable,
} from '../../src/store/registries/registry-rows.js';

/** Fresh rows of a registry table, empty (a schema of the test's own, or a new memory table). */
export type MakeRows = <T extends object>(spec: RegistryTable<T>) => Promise<RegistryRows<T>> | RegistryRows<T>;

/**
 * The rules every registry's rows keep, run against each adapter (PostgreSQL, memory): the id
 * answers "already there" by undefined, another unique field by DuplicateValueError naming it,
 * updates merge, lists go newest first with the total.
 */
export function registryRowsSuite(name: string, make: MakeRows): void {
  describe(`RegistryRows conformance: ${name}`, () => {
    const household = (n: number, phoneNumber?: string): Household => ({
      did: `did:key:z${n}-${Date.now().toString(36)}`,
      ...(phoneNumber ? { phoneNumber } : {}),
    });

    it('inserts and reads a record back with its times, and leaves out fields it was not given', async () => {
      const rows = await make(householdTable);
      const h = household(1);
      const created = await rows.insert(h);
      expect(created).toMatchObject({ did: h.did });
      expect(created).not.toHaveProperty('phoneNumber');
      expect(Date.parse((created as unknown as { createdAt: string }).createdAt)).toBeGreaterThan(0);
      expect(await rows.select(h.did)).toEqual(created);
      expect(await rows.select('did:key:nobody')).toBeUndefined();
      expect(rows.idOf(h)).toBe(h.did);
    });

    it('answers undefined for an id already there, and keeps the first record', async () => {
      const rows = await make(supplierTable);
      const s: Supplier = { did: `did:key:s-${Date.now()}`, name: 'First', authorized: true, publicKey: 'k1' };
      await rows.insert(s);
      expect(await rows.insert({ ...s, name: 'Second' })).toBeUndefined();
      expect(await rows.select(s.did)).toMatchObject({ name: 'First' });
    });

    it('refuses a unique value another record holds, on insert and on update, naming the field', async () => {
      const rows = await make(householdTable);
      const phone = `+26097${String(Date.now()).slice(-7)}`;
      await rows.insert(household(2, phone));
      const other = household(3);
      await expect(rows.insert({ ...household(4), phoneNumber: phone })).rejects.toEqual(
        new DuplicateValueError('phoneNumber'),
      );
      await rows.insert(other);
      await expect(rows.update(other.did, { phoneNumber: phone })).rejects.toBeInstanceOf(DuplicateValueError);
      expect(await rows.select(other.did)).not.toHaveProperty('phoneNumber');
    });

    it('updates what the patch gives and nothing else; an unknown id answers undefined', async () => {
      const rows = await make(supplierTable);
      const s: Supplier = { did: `did:key:u-${Date.now()}`, name: 'Stoves', authorized: false, publicKey: 'k' };
      await rows.insert(s);
      const updated = await rows.update(s.did, { authorized: true });
      expect(updated).toMatchObject({ did: s.did, name: 'Stoves', authorized: true, publicKey: 'k' });
      expect(await rows.update('did:key:nobody', { authorized: true })).toBeUndefined();
    });

    it('lists newest first, a page at a time, with the total past the last page too', async () => {
      const rows = await make(householdTable);
      const made = [household(10), household(11), household(12)];
      // Back to back: within one millisecond, the order is still the order they were made in.
      for (const h of made) await rows.insert(h);
      const first = await rows.page(2, 0);
      expect(first.total).toBeGreaterThanOrEqual(3);
      const all = await rows.page(1000, 0);
      const ours = all.items.map((h) => h.did).filter((d) => made.some((m) => m.did === d));
      expect(ours).toEqual([...made].reverse().map((h) => h.did));
      expect(first.items).toHaveLength(2);
      const past = await rows.page(10, all.total + 5);
      expect(past).toMatchObject({ items: [], total: all.total, limit: 10, offset: all.total + 5 });
    });
  });
}
