import { describe, expect, it } from 'vitest';
import { decodeEntry, decodeReply, encodeEntry } from '../../../../src/actors/runtime/entry-codec.js';

describe('mailbox entry and reply codec', () => {
  const entry = {
    key: 'voucher-1',
    kind: 'redeem',
    body: '{"kind":"redeem","amount":5}',
    reply: 'hearth:replies:gw-1',
    corr: 'Ab3.1z',
    ts: 1_795_000_000_123,
  };

  it('reads back every field it wrote, in readable pairs', () => {
    const fields = encodeEntry(entry);
    expect(fields.filter((_, i) => i % 2 === 0)).toEqual(['key', 'kind', 'body', 'reply', 'corr', 'ts']);
    expect(decodeEntry('1-1', fields)).toEqual({ id: '1-1', ...entry });
  });

  it('takes fields in any order, ignores unknown ones, keeps the last of a repeated one', () => {
    // `deadline`: entries of gateways before it was dropped still decode.
    const fields = ['ts', '7', 'extra', 'x', 'deadline', '9', 'key', 'a', 'key', 'b', 'kind', 'k'];
    expect(decodeEntry('2-0', fields)).toEqual({
      id: '2-0',
      key: 'b',
      kind: 'k',
      body: '',
      reply: '',
      corr: '',
      ts: 7,
    });
  });

  it('answers undefined for a deleted entry (nil fields)', () => {
    expect(decodeEntry('3-0', null)).toBeUndefined();
  });

  it('reads a reply: ok only for "1", missing fields empty', () => {
    expect(decodeReply(['corr', 'c1', 'ok', '1', 'body', '{"a":1}'])).toEqual({
      corr: 'c1',
      ok: true,
      body: '{"a":1}',
    });
    expect(decodeReply(['body', 'null', 'ok', '0', 'corr', 'c2'])).toEqual({ corr: 'c2', ok: false, body: 'null' });
    expect(decodeReply(['ok', 'yes'])).toEqual({ corr: '', ok: false, body: '' });
  });
});
