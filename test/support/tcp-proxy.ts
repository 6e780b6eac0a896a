import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones: the service behind looks down. */
  cut(): void;
  /** Accepts and forwards again. */
  restore(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy in front of Redis or Postgres, so a test can take the service "down". */
export async function startProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
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
    restore() {
      down = false;
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
