import { reject, type ActorContext, type Decision } from '../runtime/types.js';
import { SESSION_DELETED, type ChatMessage, type ChatSession } from './messages.js';

const notFound = (key: string) => reject('CHAT_SESSION_NOT_FOUND', `no session ${key}`);

/**
 * One actor per chat session, owned by the DID that created it: only that DID reads or
 * deletes it (any other DID is told it does not exist, not that it is someone else's).
 */
export function decideChat(state: ChatSession | undefined, msg: ChatMessage, ctx: ActorContext): Decision<ChatSession> {
  switch (msg.kind) {
    case 'create': {
      if (state) {
        // A retried create (same key) by the same owner answers the same session.
        return state.ownerDid === msg.ownerDid && !state.deleted
          ? { state, reply: state }
          : { state, rejection: reject('ALREADY_EXISTS', `session ${ctx.key} exists`) };
      }
      const at = ctx.now.toISOString();
      const session: ChatSession = {
        sessionId: ctx.key,
        createdAt: at,
        lastUpdatedAt: at,
        oracleName: msg.oracleName,
        oracleDid: msg.oracleDid,
        ...(msg.oracleEntityDid ? { oracleEntityDid: msg.oracleEntityDid } : {}),
        ownerDid: msg.ownerDid,
        deleted: false,
      };
      return { state: session, reply: session };
    }
    case 'get':
      if (!state || state.deleted || state.ownerDid !== msg.ownerDid) return { state, rejection: notFound(ctx.key) };
      return { state, reply: state };
    case 'append': {
      if (!state || state.deleted || state.ownerDid !== msg.ownerDid) return { state, rejection: notFound(ctx.key) };
      const at = ctx.now.toISOString();
      let seq = state.messageCount ?? 0;
      const records = msg.messages.map((m) => ({
        kind: 'message',
        id: m.id,
        body: { ...m, createdAt: at, seq: seq++ },
      }));
      const firstHuman = msg.messages.find((m) => m.type === 'human');
      const title = state.title ?? (firstHuman ? firstHuman.content.slice(0, 60) : undefined);
      const next: ChatSession = { ...state, lastUpdatedAt: at, messageCount: seq, ...(title ? { title } : {}) };
      return { state: next, reply: { appended: msg.messages.length }, records };
    }
    case 'delete': {
      if (!state || state.deleted || state.ownerDid !== msg.ownerDid) return { state, rejection: notFound(ctx.key) };
      const next = { ...state, deleted: true, lastUpdatedAt: ctx.now.toISOString() };
      return { state: next, reply: { message: SESSION_DELETED } };
    }
  }
}
