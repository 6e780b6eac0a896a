import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startHearth, type Hearth } from '../../src/hearth.js';
import { isolated, type Isolated } from '../support/isolated.js';

const promtool = (() => {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Metric families an expression names (a histogram's _bucket, _sum and _count are its family). */
function familiesIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:hearth|process|nodejs)_[a-z0-9_]+)/g)].map((m) =>
    m[1]!.replace(/_(bucket|sum|count)$/, ''),
  );
}

/**
 * deploy/: Prometheus's alert rules, Grafana's dashboard and the compose profile that starts both
 * (issue 25). Every metric they name must be one hearth exports, and the rules must pass promtool.
 */
describe('the observability files', () => {
  let env: Isolated;
  let hearth: Hearth;
  let exported = new Set<string>();

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2' }), env.log);
    const text = await (await fetch(`http://127.0.0.1:${hearth.port}/metrics`)).text();
    exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  const rules = parse(readFileSync('deploy/prometheus/alerts.yml', 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string; labels: { severity: string } }> }>;
  };
  const dashboard = JSON.parse(readFileSync('deploy/grafana/dashboards/hearth.json', 'utf8')) as {
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };

  it('alerts on growing lag, dead letters, asks timing out, a stalled or failing ledger', () => {
    const alerts = rules.groups.flatMap((g) => g.rules);
    expect(alerts.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'HearthMailboxLagGrowing',
        'HearthDeadLetters',
        'HearthAsksTimingOut',
        'HearthLedgerNotAdvancing',
        'HearthLedgerFailing',
      ]),
    );
    for (const r of alerts) expect(['warning', 'critical']).toContain(r.labels.severity);
  });

  it('names only metrics hearth exports, in the rules and on every dashboard panel', () => {
    expect(exported.has('hearth_mailbox_lag')).toBe(true);
    const named = [
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ].flatMap(familiesIn);
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((m) => !exported.has(m))).toEqual([]);
  });

  it('starts Prometheus and Grafana in the observability profile, from files that exist', () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
      services: Record<string, { profiles?: string[]; volumes?: string[] }>;
    };
    for (const name of ['prometheus', 'grafana']) {
      const service = compose.services[name]!;
      expect(service.profiles).toEqual(['observability']);
      for (const volume of service.volumes ?? []) expect(existsSync(volume.split(':')[0]!)).toBe(true);
    }
    // The default `docker compose up` starts neither.
    expect(compose.services.hearth!.profiles).toBeUndefined();
  });

  it.skipIf(!promtool)('passes promtool (skipped: promtool not installed; apt-get install prometheus)', () => {
    expect(execFileSync('promtool', ['check', 'rules', 'deploy/prometheus/alerts.yml']).toString()).toMatch(/SUCCESS/);
    expect(execFileSync('promtool', ['check', 'config', 'deploy/prometheus/prometheus.yml']).toString()).toMatch(
      /SUCCESS/,
    );
  });
});
