import { describe, expect, it } from 'vitest';
import { decideChat } from '../../../../src/actors/chat/logic.js';
import { sessionView, type ChatSession } from '../../../../src/actors/chat/messages.js';
import type { ActorContext } from '../../../../src/actors/runtime/types.js';

const ctx: ActorContext = {
  type: 'chat',
  key: 's-1',
  msgId: '1-0',
  now: new Date('2026-11-22T10:00:00Z'),
  id: () => 'x',
  fact: () => undefined,
  tallies: () => ({}),
};
const create = {
  kind: 'create' as const,
  ownerDid: 'did:key:alice',
  oracleName: 'hearth',
  oracleDid: 'did:key:oracle',
};

describe('chat session actor', () => {
  it('creates a session owned by its caller, in the wire shape', () => {
    const d = decideChat(undefined, create, ctx);
    expect(sessionView(d.state!)).toEqual({
      sessionId: 's-1',
      createdAt: '2026-11-22T10:00:00.000Z',
      lastUpdatedAt: '2026-11-22T10:00:00.000Z',
      oracleName: 'hearth',
      oracleDid: 'did:key:oracle',
    });
  });

  it("hides a session from every DID but its owner's, and deletes it for the owner only", () => {
    const s = decideChat(undefined, create, ctx).state as ChatSession;
    expect(decideChat(s, { kind: 'get', ownerDid: 'did:key:mallory' }, ctx).rejection?.code).toBe(
      'CHAT_SESSION_NOT_FOUND',
    );
    expect(decideChat(s, { kind: 'delete', ownerDid: 'did:key:mallory' }, ctx).rejection?.code).toBe(
      'CHAT_SESSION_NOT_FOUND',
    );
    const deleted = decideChat(s, { kind: 'delete', ownerDid: 'did:key:alice' }, ctx);
    expect(deleted.reply).toEqual({ message: 'Session deleted successfully' });
    expect(decideChat(deleted.state, { kind: 'get', ownerDid: 'did:key:alice' }, ctx).rejection?.code).toBe(
      'CHAT_SESSION_NOT_FOUND',
    );
    expect(decideChat(s, { ...create, ownerDid: 'did:key:mallory' }, ctx).rejection?.code).toBe('ALREADY_EXISTS');
  });
});
