import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { startProxy, viaProxy, type TcpProxy } from '../../../support/tcp-proxy.js';
import { ussdClient } from '../../../support/ussd-client.js';

const BUSY = 'END The service is busy. Please try again shortly.';

/** Whatever fails behind it, the aggregator gets a 200 with a line the phone can show. */
describe('USSD when the service cannot answer', () => {
  let env: Isolated;
  let pg: TcpProxy;
  let hearth: Hearth;

  beforeAll(async () => {
    env = await isolated();
    const target = viaProxy(env.databaseUrl);
    pg = await startProxy(target.host, target.port);
    // A gateway with no worker anywhere: every ask waits for its deadline.
    hearth = await startHearth(
      env.config({
        ROLE: 'gateway',
        ASK_TIMEOUT_MS: '300',
        REQUEST_DEADLINE_MS: '1000',
        DATABASE_URL: viaProxy(env.databaseUrl, pg.port).url,
      }),
      env.log,
    );
  });

  afterAll(async () => {
    await hearth.close();
    await pg.close();
    await env.cleanup();
  });

  it('ends the session with a busy line when the session actor does not answer in time', async () => {
    const r = await ussdClient(`http://127.0.0.1:${hearth.port}`).post({
      sessionId: 'busy-1',
      phoneNumber: '+260970000901',
      text: '',
    });
    expect(r).toMatchObject({ status: 200, text: BUSY });
    expect(r.type).toMatch(/^text\/plain/);
  });

  it('ends the session with the same line when PostgreSQL silently stops answering, without waiting', async () => {
    pg.stall();
    try {
      const started = Date.now();
      const r = await ussdClient(`http://127.0.0.1:${hearth.port}`).post({
        sessionId: 'busy-2',
        phoneNumber: '+260970000902', // not looked up before: the phone directory asks PostgreSQL
        text: '',
      });
      expect(r).toMatchObject({ status: 200, text: BUSY });
      // PostgreSQL's watch notices the silence within interval + timeout (0.75 s), or the hop
      // deadline (1 s here) ends it first: the same line either way, never a hang.
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      pg.restore();
    }
  });
});
