/**
 * A failure as /health may show it: URLs cut to their origin (a provider's RPC URL often carries
 * an API key in its path or query, and never a password), and the length bounded.
 */
export function publicReason(reason: string): string {
  const cut = reason.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, (url) => {
    try {
      const u = new URL(url);
      return `${u.protocol}//${u.host}`;
    } catch {
      return '<url>';
    }
  });
  return cut.length > 500 ? `${cut.slice(0, 500)}…` : cut;
}
