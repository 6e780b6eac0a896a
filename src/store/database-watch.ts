import postgres from 'postgres';
import type { Logger } from '../log.js';
import type { OutageSignal } from '../actors/runtime/ports.js';
import { sessionTarget } from './db.js';

/** Which host of DATABASE_URL the watch last found to be the primary. */
export interface PrimaryHost {
  /** Its position in DATABASE_URL's host list, from 1 (0: not matched to an entry). */
  position: number;
  /** The host's address and port as the server gave them (`inet_server_addr()`, `inet_server_port()`). */
  address: string;
  port: number;
}

export interface DatabaseWatchOptions {
  url: string;
  schema: string;
  log: Logger;
  /** How often PostgreSQL is asked `select 1` while it is up, ms. */
  intervalMs: number;
  /** A probe not answered by then counts as down (a network that drops packets answers nothing), ms. */
  timeoutMs: number;
}

/** While down, probes come this often, so that a return is seen within a second. */
const DOWN_INTERVAL_MS = 100;

/**
 * Watches PostgreSQL from one connection of its own: every `intervalMs` it asks whether the server
 * it reached is the primary, bounded by `timeoutMs`. A server in recovery (a standby, or a primary
 * being demoted in a failover) or read-only by default (pg_auto_failover's new primary until the
 * old one is known to be demoted) counts as down (`NOT_PRIMARY`): hearth cannot write there, so
 * requests are answered 503 and `/health` fails rather than promising writes that would fail. Requests could not tell an outage by themselves: with connections refused, the
 * pool fails fast, but requests waiting on an actor (whose worker retries its commits) or on a
 * connection that a dropped network left open wait for their deadline. With the watch they are
 * answered 503 within `intervalMs + timeoutMs` of the outage, and its end is seen within
 * `timeoutMs + 100 ms` of PostgreSQL's return.
 */
export class DatabaseWatch implements OutageSignal {
  private down: string | undefined;
  private primaryHost: PrimaryHost | undefined;
  private readonly listeners = new Set<(down: string | undefined) => void>();
  private probe: postgres.Sql | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private running: Promise<void> | undefined;

  constructor(private readonly o: DatabaseWatchOptions) {}

  start(): void {
    this.schedule(0);
  }

  current(): string | undefined {
    return this.down;
  }

  /** The primary the last probe reached (undefined while none was). */
  primary(): PrimaryHost | undefined {
    return this.down === undefined ? this.primaryHost : undefined;
  }

  onChange(listener: (down: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Idempotent: stops probing and closes the probe's connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    await this.dropProbe();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.running = this.check().finally(() => {
        this.running = undefined;
        this.schedule(this.down ? DOWN_INTERVAL_MS : this.o.intervalMs);
      });
    }, ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    let cause = await this.ask();
    // One connection that errs (terminated by an operator, reset by a pooler) is not an outage:
    // ask again on a new one before answering everyone 503. A silence is not asked twice: that
    // would double the time to notice a network that drops packets.
    if (cause !== undefined && this.down === undefined && cause !== this.silence()) cause = await this.ask();
    if (this.closed) return;
    if (cause === this.down || (cause && this.down)) return;
    this.down = cause;
    if (cause) this.o.log.warn({ cause }, 'postgresql unreachable: requests that need it are answered 503');
    else this.o.log.info('postgresql reachable again');
    for (const listener of this.listeners) listener(cause);
  }

  /** Undefined when `select 1` answered in time; the cause otherwise. */
  private async ask(): Promise<string | undefined> {
    this.probe ??= postgres(this.o.url, {
      ...sessionTarget(this.o.url),
      max: 1,
      connect_timeout: Math.max(1, Math.ceil(this.o.timeoutMs / 1000)),
      idle_timeout: 0,
      onnotice: () => undefined,
      connection: { search_path: this.o.schema, application_name: 'hearth-watch' },
    });
    const probe = this.probe;
    const query = probe<{ standby: boolean; address: string | null; port: number | null }[]>`
      SELECT pg_catalog.pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS standby,
             host(inet_server_addr()) AS address,
             inet_server_port() AS port`.then(
      ([row]) => {
        if (!row || row.standby) return 'NOT_PRIMARY';
        this.primaryHost = primaryOf(probe.options, row.address ?? 'local', row.port ?? 0);
        return undefined;
      },
      (err: unknown) => causeOf(err),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.o.timeoutMs)));
    let answer = await Promise.race([query, late]);
    clearTimeout(timer);
    if (answer === 'late') {
      // A busy event loop can fire the timer before it reads an answer that is already there:
      // give the poll phase one turn before calling it silence.
      await new Promise((resolve) => setImmediate(resolve));
      answer = await Promise.race([query, Promise.resolve('late' as const)]);
    }
    if (answer !== 'late') {
      if (answer !== undefined) await this.dropProbe();
      return answer;
    }
    // The connection hangs on a silent network: a new one is opened for the next probe.
    await this.dropProbe();
    return this.silence();
  }

  private silence(): string {
    return `no answer within ${this.o.timeoutMs} ms`;
  }

  private async dropProbe(): Promise<void> {
    const probe = this.probe;
    this.probe = undefined;
    // Best effort: the probe connection is dropped either way; the next probe opens a new one.
    await probe?.end({ timeout: 0 }).catch(() => undefined);
  }
}

/** The error's code (ECONNREFUSED, 57P01…), never its message: that names hosts and ports. */
function causeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'unreachable';
}

/**
 * Which entry of the URL's host list a server is: the one with its port, or among several with
 * that port, the one whose name is its address (a loopback name for a loopback address).
 */
function primaryOf(options: { host: string[]; port: number[] }, address: string, port: number): PrimaryHost {
  const loopback = (h: string) => h === 'localhost' || h.startsWith('127.') || h === '::1';
  const candidates = options.host.map((h, i) => ({ h, i })).filter(({ i }) => options.port[i] === port);
  const match =
    candidates.length === 1
      ? candidates[0]
      : candidates.find(({ h }) => h === address || (loopback(h) && loopback(address)));
  return { position: match ? match.i + 1 : 0, address, port };
}
