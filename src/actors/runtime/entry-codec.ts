/**
 * The fields of a mailbox entry. They stay plain text so `redis-cli XREAD` shows them readably:
 * `key`, `kind`, `body` (JSON), `reply` (stream, empty for tell), `corr`, `ts`, `deadline`.
 */
export interface MailboxEntry {
  id: string;
  key: string;
  kind: string;
  body: string;
  reply: string;
  corr: string;
  ts: number;
  deadline: number;
}

export function encodeEntry(e: Omit<MailboxEntry, 'id'>): string[] {
  return [
    'key',
    e.key,
    'kind',
    e.kind,
    'body',
    e.body,
    'reply',
    e.reply,
    'corr',
    e.corr,
    'ts',
    String(e.ts),
    'deadline',
    String(e.deadline),
  ];
}

/** Turns XREADGROUP's `[id, [f1, v1, …]]` into an entry; `null` fields mean it was deleted. */
export function decodeEntry(id: string, fields: string[] | null): MailboxEntry | undefined {
  if (!fields) return undefined;
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
  return {
    id,
    key: map.get('key') ?? '',
    kind: map.get('kind') ?? '',
    body: map.get('body') ?? '',
    reply: map.get('reply') ?? '',
    corr: map.get('corr') ?? '',
    ts: Number(map.get('ts') ?? 0),
    deadline: Number(map.get('deadline') ?? 0),
  };
}

/** A reply stream entry: fields `corr`, `ok` (`1` or `0`) and `body` (JSON), written by settle-script.ts. */
export interface ReplyEntry {
  corr: string;
  ok: boolean;
  body: string;
}

export function decodeReply(fields: string[]): ReplyEntry {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
  return { corr: map.get('corr') ?? '', ok: map.get('ok') === '1', body: map.get('body') ?? '' };
}
