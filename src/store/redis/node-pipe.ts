import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import RedisParser from 'redis-parser';

/** How a pipe reaches its node: the cluster client's own credentials, TLS and connection name. */
export interface NodePipeOptions {
  username?: string;
  password?: string;
  tls?: ConnectionOptions;
  connectionName: string;
  /** A command unanswered this long fails, with every other in flight on the pipe. */
  timeoutMs: number;
}

/** One command's arguments, its name first. */
type RawCommand = ReadonlyArray<string | number>;

/** A command and what to do with its reply (an error reply is a reply, given as an Error). */
export interface PipedCommand {
  args: RawCommand;
  answer(reply: unknown): void;
  /** The connection failed or timed out before the reply came. */
  fail(err: Error): void;
}

interface InFlight {
  /**
   * None for the pipe's own commands (AUTH, CLIENT SETNAME), and once its command has been failed
   * for want of a reply: the reply, when it comes, is skipped.
   */
  command?: PipedCommand;
  /** One of the pipe's own commands: an error reply to it loses the connection. */
  hello?: boolean;
  sentAt: number;
}

/**
 * A connection of the runtime's own to one node of a Redis Cluster, for its hot commands: a
 * worker's reads and acknowledgements, a round's replies, a gateway's mailbox writes. The batches
 * of one event-loop turn are encoded and written in one socket write, and the replies are
 * matched to them in order.
 *
 * Why not ioredis: through its cluster pipeline each command cost the worker 10 µs of its event
 * loop (its command object, promise, slot check and per-command timer; 160–180 µs for the 16
 * non-blocking reads of one round on 3 masters, against 54 µs for the one multi-stream read a
 * round takes on one Redis). Encoded here, the same 16 reads cost 69 µs (a throwaway probe of
 * session 20, not kept). Redis sees the same commands.
 *
 * Nothing is retried here. A connection that fails fails every command in flight (the runtime's
 * callers treat that as a failed read or write, as they do for ioredis's), and the next batch
 * opens a new connection. A command unanswered within `timeoutMs` fails, with every other in
 * flight, but the connection stays (as ioredis's command timeout does): a stalled Redis may still
 * run them, and it runs them before anything sent after them, on this connection. Another
 * connection would let a later write overtake them, or a read of the pending history run before
 * a late read whose entries it should have found.
 */
export class NodePipe {
  private socket: Socket | undefined;
  private inFlight: InFlight[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * The batches sent this turn, encoded, written together in the turn's check phase: a gateway's
   * mailbox writes, rate counters and live-index hops are three batches a turn, and on three
   * masters each was a socket write per node, a syscall in the gateway and a read in Redis for
   * each (`writeUtf8String` was 17 µs of the gateway's 120 per USSD hop under the profiler,
   * against 11 of 91 on one Redis).
   */
  private unwritten = '';
  private writeScheduled = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly opts: NodePipeOptions,
  ) {}

  /**
   * Sends the commands, written with every other batch of this event-loop turn in one write (in
   * the turn's check phase). Their replies come in order, each to its command, before any later
   * batch's: callbacks, not promises, so that a caller acting on a reply (following a
   * redirection) does so before the next reply is handled.
   */
  send(commands: readonly PipedCommand[]): void {
    if (commands.length === 0) return;
    if (this.closed) {
      for (const c of commands) c.fail(new Error('Redis node connection closed'));
      return;
    }
    try {
      if (!this.socket) this.open();
    } catch (err) {
      // A malformed address or TLS option: refused here, never left unanswered.
      for (const c of commands) c.fail(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const now = performance.now();
    for (const command of commands) this.inFlight.push({ command, sentAt: now });
    this.armTimer();
    this.unwritten += encode(commands.map((c) => c.args));
    if (this.writeScheduled) return;
    this.writeScheduled = true;
    setImmediate(() => this.write());
  }

  /**
   * The batches of this turn, in one socket write. What is unwritten is the current connection's:
   * a lost connection's batches were failed and forgotten with it.
   */
  private write(): void {
    this.writeScheduled = false;
    const data = this.unwritten;
    this.unwritten = '';
    if (data.length > 0) this.socket?.write(data);
  }

  close(): void {
    this.closed = true;
    this.drop(new Error('Redis node connection closed'));
  }

  private open(): Socket {
    const options = { host: this.host, port: this.port };
    const socket = this.opts.tls ? tlsConnect({ ...this.opts.tls, ...options }) : netConnect(options);
    socket.setNoDelay(true);
    // A peer gone without a reset (a frozen or cut-off node) is found by the kernel in time.
    socket.setKeepAlive(true, 10_000);
    const parser = new RedisParser({
      returnReply: (reply: unknown) => this.socket === socket && this.answer(reply),
      returnError: (err: Error) => this.socket === socket && this.answer(err),
      // A reply the parser cannot read: the stream is lost, and every command in flight with it.
      returnFatalError: (err: Error) => this.socket === socket && this.drop(err),
    });
    socket.on('data', (chunk: Buffer) => parser.execute(chunk));
    // A connection given up on (dropped) may still report: only the current one speaks.
    socket.on('error', (err: Error) => this.socket === socket && this.drop(err));
    socket.on(
      'close',
      () =>
        this.socket === socket && this.drop(new Error(`Redis node ${this.host}:${this.port} closed the connection`)),
    );
    this.socket = socket;
    // Written before the connection is up: the socket holds them until it is, and they lead.
    const hello: RawCommand[] = [];
    // No password (or an empty one, as ioredis treats it): no AUTH.
    if (this.opts.password)
      hello.push(['AUTH', ...(this.opts.username ? [this.opts.username] : []), this.opts.password]);
    hello.push(['CLIENT', 'SETNAME', this.opts.connectionName]);
    for (let i = 0; i < hello.length; i++) this.inFlight.push({ hello: true, sentAt: performance.now() });
    socket.write(encode(hello));
    return socket;
  }

  private answer(reply: unknown): void {
    const next = this.inFlight.shift();
    if (!next) return;
    if (this.inFlight.length === 0) this.disarmTimer();
    if (next.command) next.command.answer(reply);
    // The pipe's own commands: an error (a wrong password) loses the connection.
    else if (next.hello && reply instanceof Error) this.drop(reply);
  }

  /** Fails everything in flight and forgets the connection (the next batch opens another). */
  private drop(err: Error): void {
    const socket = this.socket;
    this.socket = undefined;
    this.disarmTimer();
    const lost = this.inFlight;
    this.inFlight = [];
    // Not written yet: their commands fail with the rest, and must not reach the next connection.
    this.unwritten = '';
    socket?.destroy();
    for (const c of lost) c.command?.fail(err);
  }

  private armTimer(): void {
    if (this.timer) return;
    const oldest = this.inFlight.find((c) => c.command);
    if (!oldest) return;
    const wait = Math.max(0, oldest.sentAt + this.opts.timeoutMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const first = this.inFlight.find((c) => c.command);
      if (!first) return;
      if (performance.now() - first.sentAt < this.opts.timeoutMs) {
        this.armTimer();
        return;
      }
      // Every command in flight fails now; their replies, if they come, are skipped in order.
      const err = new Error(`Redis node ${this.host}:${this.port}: no reply within ${this.opts.timeoutMs} ms`);
      for (const c of this.inFlight) {
        const command = c.command;
        c.command = undefined;
        command?.fail(err);
      }
    }, wait);
    this.timer.unref();
  }

  private disarmTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** RESP arrays of bulk strings, the form every Redis command takes on the wire. */
function encode(commands: readonly RawCommand[]): string {
  let out = '';
  for (const args of commands) {
    out += `*${args.length}\r\n`;
    for (const a of args) {
      const s = String(a);
      out += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
    }
  }
  return out;
}
