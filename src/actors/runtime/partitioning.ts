/**
 * Which partition owns an actor's key: a stable hash of the key, so every process (gateway,
 * worker, relay, CLI) places a key in the same partition without asking anyone.
 */

/** FNV-1a, 32 bit: stable across processes and versions, which `partitionOf` needs. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The partition that owns a key. P must not change while a deployment has data. */
export function partitionOf(key: string, partitions: number): number {
  return fnv1a(key) % partitions;
}
