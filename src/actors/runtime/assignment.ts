import { fnv1a } from './partitioning.js';

/**
 * Which live worker should own partition `p` of `type`: members sorted by id, partitions dealt
 * round-robin from an offset that depends on the type, so every worker gets an even share
 * (differing by at most one per type) and the types do not all start on the same worker.
 */
export function ownerOf(type: string, partition: number, members: readonly string[]): string | undefined {
  if (members.length === 0) return undefined;
  const sorted = [...members].sort();
  return sorted[(partition + fnv1a(type)) % sorted.length];
}

export function partitionsFor(type: string, partitions: number, members: readonly string[], me: string): number[] {
  const sorted = [...members].sort();
  const mine: number[] = [];
  for (let p = 0; p < partitions; p++) if (ownerOf(type, p, sorted) === me) mine.push(p);
  return mine;
}
