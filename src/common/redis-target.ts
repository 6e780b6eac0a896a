/**
 * What `REDIS_URL` names: one Redis (`redis://`, `rediss://` with TLS), or a Redis Cluster by its
 * seed nodes (`redis+cluster://[user:password@]host:port,host:port,…`, `rediss+cluster://` with
 * TLS). One variable for both, so every part of hearth (and every test) that is handed a URL
 * runs on either: the seeds are only where the client starts, it learns the rest of the
 * cluster from them.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      username?: string;
      password?: string;
      tls: boolean;
    };

const clusterScheme = /^(rediss?)\+cluster:\/\//;

/** What is wrong with a Redis URL, or undefined when it is one of the forms above. */
export function redisUrlProblem(url: string): string | undefined {
  if (/^rediss?:\/\//.test(url)) return undefined;
  if (!clusterScheme.test(url)) return 'must start with redis://, rediss://, redis+cluster:// or rediss+cluster://';
  try {
    parseRedisTarget(url);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Parses a Redis URL; throws a message that says what is wrong with a cluster URL. */
export function parseRedisTarget(url: string): RedisTarget {
  const scheme = clusterScheme.exec(url);
  if (!scheme) return { kind: 'single', url };
  let rest = url.slice(scheme[0].length).replace(/\/\d*$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : auth) || undefined;
    password = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : undefined;
  }
  const nodes = rest.split(',').map((seed) => {
    const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(seed.trim());
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) throw new Error(`cluster seed "${seed}" is not host:port`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return { kind: 'cluster', nodes, username, password, tls: scheme[1] === 'rediss' };
}

/** Hides a password in a Redis URL (either kind) before it is printed. */
export function redactRedisUrl(url: string): string {
  const at = url.lastIndexOf('@');
  const scheme = url.indexOf('://');
  if (at < 0 || scheme < 0 || at < scheme) return url;
  const auth = url.slice(scheme + 3, at);
  const colon = auth.indexOf(':');
  if (colon < 0) return url;
  return `${url.slice(0, scheme + 3)}${auth.slice(0, colon)}:***${url.slice(at)}`;
}
