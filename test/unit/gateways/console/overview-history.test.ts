import { describe, expect, it } from 'vitest';
import { OverviewHistory, percentile, routeFamily } from '../../../../src/gateways/console/overview-history.js';
import { maskPhone } from '../../../../src/gateways/console/ussd-view.js';
import { createMetrics } from '../../../../src/metrics.js';

describe("the console's overview readings", () => {
  it('groups routes into families', () => {
    expect(routeFamily('/v1/vouchers/:id/redemptions')).toBe('/v1/vouchers');
    expect(routeFamily('/api/ussd/events')).toBe('/api/ussd');
    expect(routeFamily('/health')).toBe('/health');
  });

  it('finds the bucket of a percentile from two cumulative histograms', () => {
    const then = new Map([
      [0.01, 10],
      [0.1, 10],
      [Infinity, 10],
    ]);
    const now = new Map([
      [0.01, 60],
      [0.1, 109],
      [Infinity, 110],
    ]);
    // 100 in the interval: 50 under 10 ms, 99 under 100 ms, 1 above.
    expect(percentile(now, then, 0.5)).toBe(10);
    expect(percentile(now, then, 0.99)).toBe(100);
    expect(percentile(now, then, 1)).toBeNull();
    expect(percentile(then, then, 0.99)).toBeUndefined();
  });

  it('turns counters into rates per interval, and keeps 15 minutes', async () => {
    const metrics = createMetrics();
    let at = 1_700_000_000_000;
    let backlog = 7;
    const history = new OverviewHistory(
      metrics,
      () => Promise.resolve(backlog),
      () => at,
    );
    await history.sample();
    expect(history.history().samples).toHaveLength(0);
    metrics.httpRequests.inc({ method: 'GET', route: '/v1/vouchers/:id', status: '200' }, 30);
    metrics.httpRequests.inc({ method: 'POST', route: '/api/ussd', status: '200' }, 10);
    for (let i = 0; i < 99; i++) metrics.httpDuration.observe({ method: 'GET', route: '/v1/vouchers/:id' }, 0.004);
    metrics.httpDuration.observe({ method: 'GET', route: '/v1/vouchers/:id' }, 0.2);
    metrics.asks.inc({ type: 'voucher' }, 50);
    metrics.asksTimedOut.inc({ type: 'voucher' }, 5);
    metrics.streamsOpen.set({ route: '/v1/x' }, 2);
    metrics.live.sockets = () => 3;
    metrics.live.ussdSessions = () => Promise.resolve(4);
    at += 5_000;
    await history.sample();
    const [s] = history.history().samples;
    expect(s).toMatchObject({
      requestsPerSecond: { '/v1/vouchers': 6, '/api/ussd': 2 },
      p99Ms: { '/v1/vouchers': 5 },
      asksPerSecond: 10,
      askTimeoutsPerSecond: 1,
      sseStreams: 2,
      sockets: 3,
      ussdLiveSessions: 4,
      ledgerBacklog: 7,
    });
    backlog = 0;
    for (let i = 0; i < 200; i++) {
      at += 5_000;
      await history.sample();
    }
    const { samples, intervalMs } = history.history();
    expect(intervalMs).toBe(5_000);
    expect(samples).toHaveLength(180);
    expect(samples.at(-1)).toMatchObject({ requestsPerSecond: { '/v1/vouchers': 0 }, ledgerBacklog: 0 });
  });

  it('masks phone numbers but for the country code and the last two digits', () => {
    expect(maskPhone('+260971234567')).toBe('+260•••••••67');
    expect(maskPhone('1234')).toBe('••••');
  });
});
