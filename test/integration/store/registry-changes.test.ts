import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { createRedis, connectRedis } from '../../../src/store/redis/redis.js';
import { createKeys } from '../../../src/store/redis/keys.js';
import { certificateTable, type Certificate } from '../../../src/store/registries/records.js';
import { pgRegistryRows } from '../../../src/store/registries/pg-registry-rows.js';
import { HEARD_CACHE_MS, Registry } from '../../../src/store/registries/registry.js';
import {
  redisRegistryChanges,
  registryChangesChannel,
  type RegistryChanges,
} from '../../../src/store/registries/registry-changes.js';
import { isolated, type Isolated } from '../../support/isolated.js';

const log = pino({ level: 'silent' });
const plan = (products: string[]) => ({
  approvedProducts: products,
  acceptedCredentialTypes: ['Delivery'],
  claimWindowDays: 30,
});
/** A certificate to register, its plan approving stoves. */
const certificate = (id: string, status: Certificate['status']): Certificate => ({
  id,
  projectId: 'did:ixo:p',
  verifiedReduction: 10,
  status,
  monitoringPlan: plan(['stove']),
});

/**
 * Two gateways' certificate registries on one table, each with its own listener: what one
 * changes, the other stops answering from memory at once, though its clock never moves (so no
 * copy lapses by age); and when the listener is away, copies last the short lifetime again.
 */
describe('registry changes between gateways', () => {
  let env: Isolated;
  const made: RegistryChanges[] = [];
  let now = 1_000_000;
  const clock = () => now;

  async function gateway(
    prefix = env.keys.prefix,
  ): Promise<{ certificates: Registry<Certificate>; changes: RegistryChanges }> {
    const publisher = await connectRedis(createRedis(env.redisUrl, 'test-registry'), env.redisUrl);
    const changes = redisRegistryChanges(
      publisher,
      createRedis(env.redisUrl, 'test-registry-listener', { blocking: true }),
      registryChangesChannel(createKeys(prefix)),
      log,
    );
    made.push(changes);
    await vi.waitFor(() => expect(changes.hearing).toBe(true));
    return { certificates: new Registry(pgRegistryRows(env.sql, certificateTable), 2_000, clock, changes), changes };
  }

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    for (const c of made) await c.close();
    await env.cleanup();
  });

  it('drops what another gateway changed, at once', async () => {
    const a = await gateway();
    const b = await gateway();
    await a.certificates.create(certificate('cert-1', 'verified'));
    expect((await b.certificates.get('cert-1'))?.monitoringPlan?.approvedProducts).toEqual(['stove']);

    await a.certificates.update('cert-1', { monitoringPlan: plan(['lamp']) });
    // B's clock has not moved: only the announcement can make it read again.
    await vi.waitFor(async () =>
      expect((await b.certificates.get('cert-1'))?.monitoringPlan?.approvedProducts).toEqual(['lamp']),
    );
  });

  it('forgets "no such record" when another gateway creates it', async () => {
    const a = await gateway();
    const b = await gateway();
    expect(await b.certificates.get('cert-2')).toBeUndefined();
    await a.certificates.create(certificate('cert-2', 'pending'));
    await vi.waitFor(async () => expect((await b.certificates.get('cert-2'))?.status).toBe('pending'));
  });

  it('keeps a copy up to HEARD_CACHE_MS while hearing, and 2 s once it stops hearing', async () => {
    const b = await gateway();
    // A writer that announces nowhere b listens (another deployment's prefix).
    const elsewhere = await gateway(`${env.keys.prefix}x`);
    await elsewhere.certificates.create(certificate('cert-3', 'verified'));
    expect((await b.certificates.get('cert-3'))?.status).toBe('verified');
    await elsewhere.certificates.update('cert-3', { status: 'revoked' });
    now += 2_500;
    expect((await b.certificates.get('cert-3'))?.status).toBe('verified');
    now += HEARD_CACHE_MS;
    expect((await b.certificates.get('cert-3'))?.status).toBe('revoked');

    await elsewhere.certificates.update('cert-3', { status: 'pending' });
    await b.changes.close();
    expect(b.changes.hearing).toBe(false);
    now += 2_500;
    expect((await b.certificates.get('cert-3'))?.status).toBe('pending');
  });
});
