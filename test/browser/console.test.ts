import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { encodeEntry } from '../../src/actors/runtime/entry-codec.js';
import { partitionOf } from '../../src/actors/runtime/partitioning.js';
import { startHearth, type Hearth } from '../../src/hearth.js';
import { adminKey, api, type Api } from '../support/api.js';
import { eventually, isolated, type Isolated } from '../support/isolated.js';

/** Debian's chromium (apt install chromium), or the one CHROMIUM_PATH names. */
const browserPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => p !== undefined && existsSync(p),
);
if (!browserPath) {
  console.warn('console browser tests SKIPPED: no chromium (apt install chromium, or set CHROMIUM_PATH)');
}

const PARTITIONS = 2;
const ARTIFACTS = 'test-artifacts/console';

/**
 * The operators' console in a real browser (issue 25): an operator signs in, watches the
 * overview move under load, replays a dead letter and sees it applied, creates and revokes a
 * key, tails a mailbox, runs a ledger verify; the page logs no error. Screenshots go to
 * test-artifacts/console/.
 */
describe.skipIf(!browserPath)('the console in a browser', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
  const textOf = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
  /** Waits until the element's text holds `text` (page code as a string: the tests compile without the DOM's types). */
  const waitForText = (selector: string, text: string, timeout = 15_000) =>
    page.waitForFunction(
      `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '').includes(${JSON.stringify(text)})`,
      { timeout },
    );
  const go = async (hash: string, ready: string) => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await page.waitForSelector(ready, { timeout: 15_000 });
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: String(PARTITIONS), HEARTH_DIAGNOSTICS: 'true' }),
      env.log,
    );
    a = api(hearth.port);
    // The flags the machine's own browser check uses: no sandbox as root, no calls home.
    browser = await puppeteer.launch({
      executablePath: browserPath!,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url ?? ''})`);
    });
    page.on('pageerror', (err) => problems.push(`page: ${String(err)}`));
    page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await browser?.close();
    await hearth?.close();
    await env?.cleanup();
  });

  it('signs in with an admin key held in sessionStorage only', async () => {
    await page.goto(`${a.base}/console`);
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.type('#key', adminKey);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#nav:not([hidden])');
    expect(await page.evaluate(`sessionStorage.getItem('hearth.adminKey')`)).toBe(adminKey);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(page.url()).not.toContain(adminKey);
    await shot('sign-in');
  });

  it('draws the overview, and its charts move under load', async () => {
    await go('#/overview', '[data-tile="asks/s"]');
    const stop = { now: false };
    const load = (async () => {
      for (let i = 0; !stop.now; i++)
        await a.call('POST', `/v1/diagnostics/counters/load-${i % 20}`, { body: { by: 1 } });
    })();
    try {
      // The gateway reads itself every 5 s; the page polls every 5 s.
      await page.waitForFunction(
        `Number(document.querySelector('[data-tile="asks/s"]')?.textContent) > 0 &&
          Number(document.querySelector('#page')?.dataset.samples) >= 2`,
        { timeout: 40_000 },
      );
    } finally {
      stop.now = true;
      await load;
    }
    expect(await page.$$('.uplot canvas')).not.toHaveLength(0);
    expect(Number(await textOf('[data-tile="requests/s"]'))).toBeGreaterThan(0);
    await shot('overview');
  });

  it('shows the actors: partitions with their owners, and the workers', async () => {
    await go('#/actors', 'section[data-type="counter"]');
    const text = await textOf('section[data-type="counter"]');
    expect(text).toContain(`counter: ${PARTITIONS} partitions`);
    expect(await textOf('#page')).toContain('Workers (');
    await shot('actors');
  });

  it('replays a dead letter, which is then applied, and records who did it', async () => {
    const key = 'console-dead';
    const partition = partitionOf(key, PARTITIONS);
    const body = { kind: 'add', by: 5 };
    const entry = encodeEntry({ key, kind: 'add', body: JSON.stringify(body), reply: '', corr: '', ts: Date.now() });
    const id = await env.redis.xadd(
      env.keys.deadLetter('counter', partition),
      '*',
      ...[
        'stream',
        env.keys.mailbox('counter', partition),
        'id',
        '1-0',
        ...entry,
        'error',
        'refused',
        'worker',
        'w-test',
      ],
    );
    const where = `counter/${partition}/${id}`;
    await go('#/dead-letters', `[data-letter="${where}"]`);
    await page.click(`[data-letter="${where}"] a`);
    await page.waitForSelector(`[data-detail="${where}"]`);
    expect(await textOf(`[data-detail="${where}"]`)).toContain('"by": 5');
    await shot('dead-letter');
    await page.click('#replay-one');
    await waitForText('[role=status]', `${where}: replayed`);
    const counter = await eventually(
      async () => (await a.call('GET', `/v1/diagnostics/counters/${key}`)).body,
      (c) => (c as { count?: number })?.count === 5,
    );
    expect(counter).toMatchObject({ count: 5 });
    await waitForText('#page', 'dead-letter.replay');
    expect(await page.$(`[data-letter="${where}"]`)).toBeNull();
  });

  it('creates a key, shows it once, and revokes it', async () => {
    await go('#/keys', '#key-role');
    await page.select('#key-role', 'implementer');
    await page.type('#key-label', 'console test');
    await page.click('#page form button[type=submit]');
    await page.waitForSelector('#new-key');
    const secret = await textOf('#new-key');
    expect(secret).toMatch(/^hk_/);
    expect((await a.call('GET', '/v1/households', { key: secret })).status).toBe(200);
    const id = secret.split('_')[1]!;
    await shot('keys');
    await page.click(`[data-revoke="${id}"]`);
    await waitForText(`[data-key="${id}"]`, 'revoked');
    expect((await a.call('GET', '/v1/households', { key: secret })).status).toBe(401);
  });

  it('tails a mailbox as entries arrive', async () => {
    await go('#/tail', '#tail-type option[value="counter"]');
    await page.select('#tail-type', 'counter');
    await page.type('#tail-key', 'console-tail');
    await page.click('#page form button[type=submit]');
    await waitForText('#page', 'following counter');
    await a.call('POST', '/v1/diagnostics/counters/console-tail', { body: { by: 2 } });
    await page.waitForSelector('#tail-entries [data-entry]');
    expect(await textOf('#tail-entries')).toContain('console-tail');
    await shot('tail');
  });

  it('verifies the ledger with a progress bar', async () => {
    await go('#/ledger', '#verify');
    await page.click('#verify');
    await page.waitForFunction(`/OK|FAILED/.test(document.querySelector('#verify-result')?.textContent ?? '')`, {
      timeout: 30_000,
    });
    expect(await textOf('#verify-result')).toMatch(/^OK: \d+ blocks/);
    await shot('ledger');
  });

  it('logged no error in the page', () => {
    expect(problems).toEqual([]);
  });
});
