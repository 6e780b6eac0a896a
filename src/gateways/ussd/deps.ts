import type { RedisClient } from '../../store/redis/redis.js';
import type { Asker } from '../../actors/runtime/asker.js';
import type { Keys } from '../../store/redis/keys.js';
import type { Logger } from '../../log.js';
import type { WalletDeps } from './wallet-orders.js';
import type { Metrics } from '../../metrics.js';
import type { Sql } from '../../store/db.js';
import type { Product, Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { VoucherCodes, VoucherPlans, VoucherReads } from '../voucher/service.js';
import { PgSurveyReads } from '../survey/service.js';
import { LiveSessions } from './live-sessions.js';
import { PhoneDirectory } from './phone-directory.js';
import { sealText } from '../../actors/ussd/index.js';
import type { CountryCode } from 'libphonenumber-js';
import { localClock } from '../../common/local-time.js';
import { PinStore } from './pin-store.js';
import { PhoneLanguage } from './phone-language.js';
import { PhoneRateLimit } from './rate-limit.js';
import type { HopDeps } from './hop.js';
import type { SessionEventDeps } from './session-events.js';
import { UnknownCodeLimit } from './unknown-code-limit.js';

export interface UssdOptions {
  pinKey: string;
  serviceCodes: readonly string[];
  idleMs: number;
  ratePerMinute: number;
  /** USSD_TIME_ZONE: times a phone is shown are in it. */
  timeZone: string;
  /** USSD_DEFAULT_COUNTRY: national phone numbers are read in it. */
  defaultCountry: CountryCode;
  /** REQUEST_DEADLINE_MS: a hop gets at most this (and at most 8 s; see the route). */
  deadlineMs: number;
}

/** Wires the USSD gateway's parts from the shared stores. */
export function ussdDeps(d: {
  sql: Sql;
  redis: RedisClient;
  keys: Keys;
  client: Asker;
  clock: () => Date;
  log: Logger;
  ussd: UssdOptions;
  vouchers: VoucherReads;
  products: Registry<Product>;
  plans: VoucherPlans;
  suppliers: Registry<Supplier>;
  codes: VoucherCodes;
  metrics: Metrics;
  wallet: WalletDeps;
}): HopDeps & { outcome: SessionEventDeps['outcome'] } {
  // The caches whose lifetime shows (a reassigned number, a language chosen elsewhere) run on
  // hearth's clock, so a test moves it rather than waiting them out.
  const now = () => d.clock().getTime();
  const live = new LiveSessions(d.redis, d.keys, d.ussd.idleMs);
  d.metrics.live.ussdSessions = () => live.count(d.clock());
  const pins = new PinStore(d.sql, d.ussd.pinKey, now, localClock(d.ussd.timeZone));
  const languages = new PhoneLanguage(d.sql, now);
  return {
    client: d.client,
    directory: new PhoneDirectory(d.sql, now),
    pins,
    rate: new PhoneRateLimit(d.redis, d.keys, d.ussd.ratePerMinute, d.ussd.pinKey),
    live,
    languages,
    work: {
      sql: d.sql,
      languages,
      surveys: new PgSurveyReads(d.sql),
      pins,
      vouchers: d.vouchers,
      products: d.products,
      plans: d.plans,
      suppliers: d.suppliers,
      codes: d.codes,
      unknownCodes: new UnknownCodeLimit(d.redis, d.keys, d.ussd.pinKey),
      client: d.client,
      clock: d.clock,
      wallet: d.wallet,
    },
    serviceCodes: d.ussd.serviceCodes,
    defaultCountry: d.ussd.defaultCountry,
    unserved: (reason) => d.metrics.ussdUnserved.inc({ reason }),
    outcome: (labels) => d.metrics.ussdOutcomes.inc(labels),
    seal: (text) => sealText(d.ussd.pinKey, text),
    clock: d.clock,
    log: d.log.child({ route: 'ussd' }),
  };
}
