/**
 * `did:key` for Ed25519: multibase base58btc (`z…`) of the multicodec prefix 0xed 0x01 followed
 * by the 32-byte public key.
 */
const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const index = new Map([...alphabet].map((c, i) => [c, i]));

function base58Decode(text: string): Uint8Array | undefined {
  let n = 0n;
  for (const c of text) {
    const v = index.get(c);
    if (v === undefined) return undefined;
    n = n * 58n + BigInt(v);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const c of text) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

export function base58Encode(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

/** The raw Ed25519 public key of a `did:key`, or undefined when it is not one. */
export function ed25519FromDidKey(did: string): Uint8Array | undefined {
  const m = /^did:key:z([1-9A-HJ-NP-Za-km-z]+)$/.exec(did);
  if (!m) return undefined;
  const bytes = base58Decode(m[1]!);
  if (!bytes || bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return undefined;
  return bytes.slice(2);
}

export function didKeyFromEd25519(publicKey: Uint8Array): string {
  return `did:key:z${base58Encode(Uint8Array.from([0xed, 0x01, ...publicKey]))}`;
}
