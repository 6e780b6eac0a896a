/**
 * The fields of a mailbox entry. They stay plain text so `redis-cli XREAD` shows them readably:
 * `key`, `kind`, `body` (JSON), `reply` (stream, empty for tell), `corr`, `ts`. The ask's deadline
 * is not among them: only the gateway acts on it (no worker read it), and every field of every
 * entry is written, stored and read back on each ask's path.
 */
export interface MailboxEntry {
  id: string;
  key: string;
  kind: string;
  body: string;
  reply: string;
  corr: string;
  ts: number;
}

export function encodeEntry(e: Omit<MailboxEntry, 'id'>): string[] {
  return ['key', e.key, 'kind', e.kind, 'body', e.body, 'reply', e.reply, 'corr', e.corr, 'ts', String(e.ts)];
}

/** Turns XREADGROUP's `[id, [f1, v1, …]]` into an entry; `null` fields mean it was deleted. */
export function decodeEntry(id: string, fields: string[] | null): MailboxEntry | undefined {
  if (!fields) return undefined;
  // A field scan, not a Map per entry: every ask of every round comes through here.
  const e: MailboxEntry = { id, key: '', kind: '', body: '', reply: '', corr: '', ts: 0 };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const v = fields[i + 1] as string;
    switch (fields[i]) {
      case 'key':
        e.key = v;
        break;
      case 'kind':
        e.kind = v;
        break;
      case 'body':
        e.body = v;
        break;
      case 'reply':
        e.reply = v;
        break;
      case 'corr':
        e.corr = v;
        break;
      case 'ts':
        e.ts = Number(v);
        break;
    }
  }
  return e;
}

/** A reply stream entry: fields `corr`, `ok` (`1` or `0`) and `body` (JSON), written by settle-script.ts. */
export interface ReplyEntry {
  corr: string;
  ok: boolean;
  body: string;
}

export function decodeReply(fields: string[]): ReplyEntry {
  const r: ReplyEntry = { corr: '', ok: false, body: '' };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const v = fields[i + 1] as string;
    if (fields[i] === 'corr') r.corr = v;
    else if (fields[i] === 'ok') r.ok = v === '1';
    else if (fields[i] === 'body') r.body = v;
  }
  return r;
}
