import { Delegation, UCAN } from '@ucanto/core';
/** UCAN tokens as ixo oracle clients mint them (shared with the benchmark). */
export { oracleIdentity, ucanUser } from '../../bench/lib/ucan.js';

/**
 * The same signed UCAN under another content id, as an attacker can make it: its JWT form with
 * the payload JSON re-spaced (dag-ucan verifies the signature over the canonical payload, so it
 * still verifies), archived again and base64-encoded.
 */
export async function reencoded(base64Car: string): Promise<string> {
  const extracted = await Delegation.extract(Buffer.from(base64Car, 'base64'));
  if (!extracted.ok) throw extracted.error;
  const [header, payload, signature] = (UCAN.format(extracted.ok.data) as string).split('.');
  const respaced = JSON.stringify(JSON.parse(Buffer.from(payload!, 'base64url').toString()), null, 1);
  const view = UCAN.parse(`${header}.${Buffer.from(respaced).toString('base64url')}.${signature}`);
  const again = Delegation.create({ root: await UCAN.write(view) });
  if (again.cid.toString() === extracted.ok.cid.toString()) throw new Error('re-encoding kept the CID');
  const archived = await again.archive();
  if (!archived.ok) throw archived.error;
  return Buffer.from(archived.ok).toString('base64');
}
