import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invoke, type API } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { ixoDidResolver } from '../../../../src/gateways/auth/ucan/ixo-resolver.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { oracleIdentity } from '../../../support/ucan-tokens.js';

const IXO_DID = 'did:ixo:entity:7a2b9c';

describe('did:ixo callers, resolved through the ledger network DID documents', () => {
  let env: Isolated;
  let hearth: Hearth;
  let server: Server;
  let oracleDid = '';
  let key: API.Signer;
  let lookups = 0;
  let base = '';

  beforeAll(async () => {
    key = await ed25519.generate();
    // An ixo REST API stand-in: GET /ixo/iid/v1beta1/<did> → {iidDocument: {verificationMethod}}.
    server = createServer((req, res) => {
      lookups++;
      const did = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
      if (did !== IXO_DID) {
        res.writeHead(404).end('{}');
        return;
      }
      const publicKeyMultibase = key.did().slice('did:key:'.length);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          iidDocument: { id: IXO_DID, verificationMethod: [{ id: `${IXO_DID}#key-1`, publicKeyMultibase }] },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    env = await isolated();
    oracleDid = await oracleIdentity();
    hearth = await startHearth(
      env.config({ ROLE: 'gateway', ACTOR_PARTITIONS: '2', ORACLE_DID: oracleDid, NETWORK_API_URL: base }),
      env.log,
    );
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
    await new Promise((resolve) => server.close(resolve));
  });

  async function invocation(signer: API.Signer): Promise<string> {
    const token = await invoke({
      issuer: signer,
      audience: { did: () => oracleDid } as API.Principal,
      capability: { can: '*', with: 'ixo:oracle' },
      expiration: Math.floor(Date.now() / 1000) + 300,
      nonce: Math.random().toString(36),
    }).delegate();
    const archived = await token.archive();
    if (!archived.ok) throw archived.error;
    return Buffer.from(archived.ok).toString('base64');
  }

  /** The status and the body (a failed check shows the body: a 503 says which store). */
  const get = async (token: string) => {
    const res = await fetch(`http://127.0.0.1:${hearth.port}/delegation`, {
      headers: { authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' },
    });
    return { status: res.status, body: await res.text() };
  };
  const expectStatus = async (token: Promise<string>, status: number) => {
    const answer = await get(await token);
    expect(answer.status, answer.body).toBe(status);
  };

  it('accepts an invocation signed with the key of the did:ixo document, and caches the document', async () => {
    const signer = key.withDID(IXO_DID);
    await expectStatus(invocation(signer), 200);
    await expectStatus(invocation(signer), 200);
    expect(lookups).toBe(1);
  });

  it('refuses a did:ixo whose document has another key, or none', async () => {
    const impostor = (await ed25519.generate()).withDID(IXO_DID);
    await expectStatus(invocation(impostor), 401);
    const unknown = (await ed25519.generate()).withDID('did:ixo:entity:nobody');
    await expectStatus(invocation(unknown), 401);
  });

  it('reads publicKeyBase58 as well as publicKeyMultibase, and ignores other DID methods', async () => {
    const resolve = ixoDidResolver('http://resolver.invalid/{did}', () =>
      Promise.resolve(new Response(JSON.stringify({ verificationMethod: [{ publicKeyBase58: 'abc' }] }))),
    );
    expect(await resolve('did:ixo:x')).toBe('zabc');
    expect(await resolve('did:web:example.com')).toBeUndefined();
  });
});
