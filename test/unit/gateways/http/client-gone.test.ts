import { describe, expect, it } from 'vitest';
import { ClientGone } from '../../../../src/gateways/http/client-gone.js';

describe('ClientGone (a request whose client went away)', () => {
  it('tells each listener once, and a late listener at once', () => {
    const client = new ClientGone();
    const heard: string[] = [];
    client.onGone(() => heard.push('early'));
    expect(client.gone).toBe(false);
    client.fire();
    client.fire();
    client.onGone(() => heard.push('late'));
    expect(client.gone).toBe(true);
    expect(heard).toEqual(['early', 'late']);
  });

  it('aborts its signal, whether it was asked for before or after', () => {
    const before = new ClientGone();
    const signal = before.signal;
    expect(signal.aborted).toBe(false);
    before.fire();
    expect(signal.aborted).toBe(true);

    const after = new ClientGone();
    after.fire();
    expect(after.signal.aborted).toBe(true);
    expect(new ClientGone().signal.aborted).toBe(false);
  });
});
