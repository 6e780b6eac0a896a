import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  body: string;
}

/**
 * One keep-alive HTTP/1.1 connection that sends a request and waits for its answer, nothing
 * more: the load generator runs on the same two cores as the servers it measures, and node:http's
 * client spends ~150 µs of CPU per request there (agent, parser, streams), which the servers then
 * lack. Responses must carry Content-Length (uWebSockets.js always sends it for `end()`).
 */
export class RawHttpConnection {
  private socket: Socket | undefined;
  private buffered = '';
  private waiting: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends `method path` with a body and headers (JSON by default); resolves with the status and body. */
  async request(
    method: string,
    path: string,
    body: string,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ): Promise<RawResponse> {
    const socket = this.socket ?? (await this.open());
    let head = `${method} ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    head += `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      socket.write(head + body);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.buffered = '';
  }

  private open(): Promise<Socket> {
    this.buffered = '';
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, noDelay: true }, () => resolve(socket));
      socket.setEncoding('latin1');
      // A server that stops answering fails the request instead of hanging the run.
      socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
      // Events of a socket this connection has already replaced concern nobody.
      socket.on('data', (chunk: string) => this.socket === socket && this.onData(chunk));
      const fail = (err: Error): void => {
        reject(err);
        if (this.socket !== socket) return;
        this.socket = undefined;
        this.buffered = '';
        const w = this.waiting;
        this.waiting = undefined;
        w?.reject(err);
      };
      socket.on('error', fail);
      socket.on('close', () => fail(new Error('connection closed')));
      this.socket = socket;
    });
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffered.slice(0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.protocolError(`no Content-Length in ${JSON.stringify(head.slice(0, 80))}`);
    const bodyEnd = end + 4 + Number(length[1]);
    if (this.buffered.length < bodyEnd) return;
    const status = Number(head.slice(9, 12));
    const body = Buffer.from(this.buffered.slice(end + 4, bodyEnd), 'latin1').toString('utf8');
    this.buffered = this.buffered.slice(bodyEnd);
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve({ status, body });
  }

  private protocolError(message: string): void {
    const w = this.waiting;
    this.waiting = undefined;
    this.close();
    w?.reject(new Error(message));
  }
}
