import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../../src/errors/index.js';

describe('isStoreUnavailable', () => {
  it("takes a Redis Cluster's passing states for an outage (503, retry), not a bug", () => {
    for (const message of [
      "Cluster isn't ready and enableOfflineQueue options is false",
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      'Failed to refresh slots cache.',
      'None of startup nodes is available',
      'MOVED 8114 127.0.0.1:35918',
      'ASK 2380 127.0.0.1:26256',
    ]) {
      expect(isStoreUnavailable(new Error(message))).toBe(true);
    }
  });

  it('keeps other errors for what they are', () => {
    expect(isStoreUnavailable(new Error('CROSSSLOT Keys in request do not hash to the same slot'))).toBe(false);
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable('CLUSTERDOWN')).toBe(false);
    expect(isStoreUnavailable(new Error('the MOVED 3 lines'))).toBe(false);
  });
});
