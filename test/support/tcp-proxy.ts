import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones: the service behind looks down. */
  cut(): void;
  /**
   * Stops forwarding without closing anything, and holds new connections unanswered: a network
   * that silently drops packets, where nothing fails and nothing answers.
   */
  stall(): void;
  /**
   * Drops every connection with a TCP reset (the client's socket fails with ECONNRESET, as when
   * the server's machine or its postmaster dies mid-statement), and forwards new ones as before.
   */
  reset(): void;
  /** Accepts and forwards again. */
  restore(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy in front of Redis or Postgres, so a test can take the service "down". */
export async function startProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  let stalled = false;
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
    if (stalled) {
      sockets.add(client);
      client.on('error', () => sockets.delete(client)).on('close', () => sockets.delete(client));
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    reset() {
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
    },
    stall() {
      stalled = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    restore() {
      down = false;
      // Stalled connections stay dead (as after a real outage); new ones are forwarded again.
      if (stalled) {
        stalled = false;
        for (const s of sockets) s.destroy();
        sockets.clear();
      }
    },
    close: () =>
      new Promise((resolve) => {
        down = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Host and port of a redis:// or postgres:// URL, and the URL rewritten to point at a proxy. */
export function viaProxy(url: string, proxyPort?: number): { host: string; port: number; url: string } {
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
  if (proxyPort !== undefined) {
    u.hostname = '127.0.0.1';
    u.port = String(proxyPort);
  }
  return { host, port, url: u.toString() };
}
