/** Rows as an aligned text table, columns in the order given, a header line first. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): string {
  const cell = (v: unknown): string => {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    return JSON.stringify(v);
  };
  const cells = rows.map((r) => columns.map((c) => cell(r[c]).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((row) => row[i]!.length))));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}
