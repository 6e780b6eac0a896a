/**
 * Redis Cluster's hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (the part
 * between the first `{` and the next `}`, when not empty), modulo 16384. Computed here, as Redis
 * does, so that a batch can be split per slot before it is sent (a script or a read over keys of
 * two slots is refused with CROSSSLOT).
 */
const table = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let crc = i << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  table[i] = crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

/**
 * CRC16 of an ASCII string's characters (its UTF-8 bytes), or -1 if it has another character:
 * hearth's keys are ASCII, and a Buffer per key was a gateway's most frequent allocation on a
 * cluster (every command's slot, twice).
 */
function crc16Ascii(key: string): number {
  let crc = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) return -1;
    crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ c) & 0xff]!;
  }
  return crc;
}

export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  const ascii = crc16Ascii(key);
  return (ascii >= 0 ? ascii : crc16(Buffer.from(key, 'utf8'))) % 16384;
}

/** Items by the hash slot of their key, each group in the items' order. */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = hashSlot(keyOf(item));
    let group = groups.get(slot);
    if (!group) groups.set(slot, (group = []));
    group.push(item);
  }
  return [...groups.values()];
}

/**
 * Runs `call` over the items as one batch on one Redis, and on a cluster (`cluster` true) once
 * per hash slot, all at once: a script's keys must share a slot there. Answers in the items'
 * order, one per item (`call` answers one per item of its group).
 */
export async function perSlot<T, R>(
  cluster: boolean,
  items: T[],
  keyOf: (item: T) => string,
  call: (group: T[]) => Promise<R[]>,
): Promise<R[]> {
  if (!cluster) return call(items);
  // By position, not by item: the same key may come twice in one batch.
  const positions = items.map((_, i) => i);
  const out = new Array<R>(items.length);
  await Promise.all(
    groupBySlot(positions, (i) => keyOf(items[i]!)).map(async (group) => {
      const answers = await call(group.map((i) => items[i]!));
      group.forEach((at, i) => (out[at] = answers[i]!));
    }),
  );
  return out;
}
