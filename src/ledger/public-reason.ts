/**
 * A failure as /health may show it: URLs cut to their origin (a provider's RPC URL often carries
 * an API key in its path or query, and never a password), a database's bare `host:port` (a
 * driver's "write ECONNREFUSED db.internal:5432") masked, and the length bounded. The chain's
 * public RPC origin stays: operators need to see which node fails.
 */
export function publicReason(reason: string): string {
  const cut = reason
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, (url) => {
      try {
        const u = new URL(url);
        return `${u.protocol}//${u.host}`;
      } catch {
        return '<url>';
      }
    })
    // host:port not part of a URL kept above (an IPv4 address, or a name that starts with a letter).
    .replace(/(^|[\s(=,'"])((?:\d{1,3}(?:\.\d{1,3}){3})|[a-z][\w-]*(?:\.[\w-]+)*):\d{2,5}\b/gi, '$1<host>:<port>');
  return cut.length > 500 ? `${cut.slice(0, 500)}…` : cut;
}
