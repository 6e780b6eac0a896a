import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import type { Sql } from '../../store/db.js';
import { writeSystemOutbox } from '../../store/outbox-writes.js';
import { TtlCache } from '../../ttl-cache.js';

/** Wrong PINs in a row before a phone is locked, and for how long (the first time). */
const MAX_PIN_ATTEMPTS = 3;
const LOCK_MS = 30 * 60 * 1000;
/** The longest lock: each lock in a row without a correct PIN doubles the next, up to this. */
const MAX_LOCK_MS = 24 * 60 * 60 * 1000;

/** How long the `lockouts`-th lock in a row lasts (0: the first, LOCK_MS). */
function lockMs(lockouts: number): number {
  return Math.min(LOCK_MS * 2 ** Math.min(lockouts, 16), MAX_LOCK_MS);
}
/** How long a "this owner has a PIN" answer is reused (as long as the phone directory's owner). */
const KNOWN_MS = 5_000;
/** Work orders whose answers a phone's row keeps, so a repeated order gets the same answer. */
const RECENT_ORDERS = 8;

export type PinCheck = { ok: true } | { ok: false; reason: `wrong:${number}` | `locked:${string}` };

interface PinRow {
  salt: Buffer;
  pin_hash: Buffer;
  failed_attempts: number;
  locked_until: Date | null;
  lockouts: number;
  recent_orders: Array<[string, PinCheck]>;
}

/**
 * PINs at rest: HMAC-SHA256(PIN_ENCRYPTION_KEY, salt ‖ pinMac), where `pinMac` is the session's
 * keyed hash of the digits. Salted per phone (two equal PINs never look equal), keyed (a copy of
 * the table without the key cannot be brute-forced, which a slow hash of a 5-digit PIN could
 * not prevent: 100,000 candidates), compared in constant time. Lockout is counted in the row.
 *
 * A PIN belongs to the phone's owner (the household or supplier DID the registries name), not to
 * the number: when a number is reassigned, the new owner does not inherit the old PIN (nor its
 * lockout) and sets one of their own; the old owner's row is replaced then.
 */
export class PinStore {
  /** `phone did` → until when a yes holds (ms). */
  private readonly known: TtlCache<string, true>;

  constructor(
    private readonly sql: Sql,
    private readonly key: string,
    now: () => number = Date.now,
    /** A lock's end as the phone shows it (local-time.ts); UTC hours and minutes by default. */
    private readonly showTime: (at: Date, now: Date) => string = (at) => `${at.toISOString().slice(11, 16)} UTC`,
  ) {
    this.known = new TtlCache({ ttlMs: KNOWN_MS, maxEntries: 100_000, now });
  }

  private hash(salt: Buffer, pinMac: string): Buffer {
    return createHmac('sha256', this.key).update(salt).update(pinMac).digest();
  }

  /**
   * Whether the phone's owner `did` has a PIN. A yes is remembered for a few seconds (the hop
   * path asks on every request), not for good: a number that changes hands and comes back belongs
   * to a new row by then (any process may have replaced it). A no is asked again each time.
   */
  async isSet(phone: string, did: string): Promise<boolean> {
    const known = `${phone} ${did}`;
    if (this.known.has(known)) return true;
    const [row] = await this.sql`SELECT 1 AS x FROM ussd_pins WHERE phone_number = ${phone} AND did = ${did}`;
    if (row) {
      this.known.set(known, true);
    }
    return row !== undefined;
  }

  /**
   * Sets the first PIN of the phone's owner `did` and, in the same transaction, puts the
   * account's creation on the ledger (its entry, written once). An owner who already has a PIN keeps
   * it (false); a previous owner's PIN on this number is replaced.
   */
  async create(phone: string, did: string, pinMac: string, now: Date): Promise<boolean> {
    const salt = randomBytes(16);
    return this.sql.begin(async (tx) => {
      const rows = await tx`
        INSERT INTO ussd_pins (phone_number, did, salt, pin_hash) VALUES (${phone}, ${did}, ${salt}, ${this.hash(salt, pinMac)})
        ON CONFLICT (phone_number) DO UPDATE
          SET did = EXCLUDED.did, salt = EXCLUDED.salt, pin_hash = EXCLUDED.pin_hash,
              failed_attempts = 0, locked_until = NULL, recent_orders = '[]'::jsonb, updated_at = now()
          WHERE ussd_pins.did <> EXCLUDED.did
        RETURNING 1`;
      if (rows.length === 0) return false;
      await writeSystemOutbox(tx, [
        {
          topic: 'ledger',
          sender: 'ussd-account',
          key: did,
          msgId: 'account-created',
          seq: 0,
          payload: { type: 'account.created', did, channel: 'ussd', at: now.toISOString() },
        },
      ]);
      return true;
    });
  }

  /**
   * Checks a PIN; counts a wrong one (locking at the third), resets the count on success. The
   * row is locked for the check, so parallel sessions of one phone take turns: each guess is
   * counted before the next is looked at, and none slips past a lock set meanwhile. With an
   * `order` (the work order's id), a check that order has made already answers as it did then.
   */
  async verify(phone: string, did: string, pinMac: string, now: Date, order?: string): Promise<PinCheck> {
    return this.checked(phone, did, pinMac, now, order, () => Promise.resolve());
  }

  /**
   * Changes a PIN after checking the current one (which counts towards the lockout), in the
   * check's transaction. Repeated with the same `order`, it answers as the first time did, and
   * never checks the current PIN against the one that order has just set.
   */
  async change(
    phone: string,
    did: string,
    currentMac: string,
    nextMac: string,
    now: Date,
    order?: string,
  ): Promise<PinCheck> {
    return this.checked(phone, did, currentMac, now, order, async (tx: TransactionSql) => {
      const salt = randomBytes(16);
      await tx`
        UPDATE ussd_pins SET salt = ${salt}, pin_hash = ${this.hash(salt, nextMac)}, updated_at = now()
        WHERE phone_number = ${phone} AND did = ${did}`;
    });
  }

  /** A PIN check under the row's lock; `then` runs in the same transaction when the PIN is right. */
  private checked(
    phone: string,
    did: string,
    pinMac: string,
    now: Date,
    order: string | undefined,
    then: (tx: TransactionSql) => Promise<void>,
  ): Promise<PinCheck> {
    return this.sql.begin(async (tx): Promise<PinCheck> => {
      const [row] = await tx<PinRow[]>`
        SELECT salt, pin_hash, failed_attempts, locked_until, lockouts, recent_orders FROM ussd_pins
        WHERE phone_number = ${phone} AND did = ${did} FOR UPDATE`;
      if (!row) return { ok: false, reason: `wrong:${MAX_PIN_ATTEMPTS}` };
      const repeated = order === undefined ? undefined : row.recent_orders.find(([id]) => id === order);
      if (repeated) return repeated[1];
      const answer = await this.judge(tx, phone, row, pinMac, now);
      if (answer.ok) await then(tx);
      if (order !== undefined) {
        const recent = [...row.recent_orders, [order, answer]].slice(-RECENT_ORDERS);
        await tx`UPDATE ussd_pins SET recent_orders = ${tx.json(recent)} WHERE phone_number = ${phone}`;
      }
      return answer;
    });
  }

  /** Compares in constant time and keeps the count of wrong PINs (and the lock) in the row. */
  private async judge(tx: TransactionSql, phone: string, row: PinRow, pinMac: string, now: Date): Promise<PinCheck> {
    if (row.locked_until && row.locked_until > now)
      return { ok: false, reason: `locked:${this.showTime(row.locked_until, now)}` };
    if (timingSafeEqual(this.hash(row.salt, pinMac), row.pin_hash)) {
      if (row.failed_attempts > 0 || row.locked_until || row.lockouts > 0) {
        await tx`
          UPDATE ussd_pins SET failed_attempts = 0, locked_until = NULL, lockouts = 0 WHERE phone_number = ${phone}`;
      }
      return { ok: true };
    }
    const failed = row.failed_attempts + 1;
    if (failed >= MAX_PIN_ATTEMPTS) {
      const until = new Date(now.getTime() + lockMs(row.lockouts));
      await tx`
        UPDATE ussd_pins SET failed_attempts = 0, locked_until = ${until}, lockouts = lockouts + 1, updated_at = now()
        WHERE phone_number = ${phone}`;
      return { ok: false, reason: `locked:${this.showTime(until, now)}` };
    }
    await tx`UPDATE ussd_pins SET failed_attempts = ${failed}, updated_at = now() WHERE phone_number = ${phone}`;
    return { ok: false, reason: `wrong:${MAX_PIN_ATTEMPTS - failed}` };
  }
}
