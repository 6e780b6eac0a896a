/**
 * Runs a page query that reports `count(*) OVER ()` as `total`. Past the last page the window
 * is empty and so is the total: then the first row of the first page tells it.
 */
export async function paged<R extends { total: string | number }>(
  fetch: (limit: number, offset: number) => Promise<readonly R[]>,
  limit: number,
  offset: number,
): Promise<{ rows: readonly R[]; total: number }> {
  const rows = await fetch(limit, offset);
  if (rows.length > 0 || offset === 0) return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
  const first = await fetch(1, 0);
  return { rows, total: first[0] ? Number(first[0].total) : 0 };
}
