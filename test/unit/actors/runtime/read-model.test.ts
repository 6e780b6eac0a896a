import { describe, expect, it } from 'vitest';
import { checkReadModel, viewOf } from '../../../../src/actors/runtime/read-model.js';

const model = (table: string, columns: string[]) => ({ table, columns, row: () => ({}) });

describe('read models', () => {
  it('refuses a table or column name the store could not write as a plain SQL identifier', () => {
    expect(() => checkReadModel('voucher', model('voucher_views', ['recipient_did', 'doc']))).not.toThrow();
    for (const [table, columns] of [
      ['voucher_views; DROP TABLE x', ['doc']],
      ['Voucher', ['doc']],
      ['voucher_views', ['doc"']],
      ['voucher_views', ['key']], // the primary key is the store's, not a column of the model
    ] as const) {
      expect(() => checkReadModel('voucher', model(table, [...columns]))).toThrow(/plain lower-case identifier/);
    }
  });

  it('gives a batch its rows by key, a deleted row as none, and nothing for a type without a model', () => {
    const rows = new Map<string, Record<string, unknown> | undefined>([
      ['a', { n: 1 }],
      ['b', undefined],
    ]);
    expect(viewOf(model('t', ['n']), rows)).toEqual({
      table: 't',
      columns: ['n'],
      rows: [
        { key: 'a', row: { n: 1 } },
        { key: 'b', row: undefined },
      ],
    });
    expect(viewOf(undefined, rows)).toBeUndefined();
  });
});
