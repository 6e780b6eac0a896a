import { fnv1a } from '../../actors/runtime/partitioning.js';
import { productKey, type KeyPrefix } from '../../store/redis/keys.js';

/** Chat shards: fixed, since a session's keys must keep their names. */
const CHAT_SHARDS = 16;

/**
 * The chat shard of a session (of 16, by the session id's FNV-1a): its keys' hash tag, so a
 * gateway on a cluster reads all the sessions of one shard in one blocking read.
 */
export function chatShardOf(sessionId: string): number {
  return fnv1a(sessionId) % CHAT_SHARDS;
}

/** A key of one chat session: `<prefix>:{chat:s<shard>}:<sessionId>:<what>…`. */
const chat = (at: KeyPrefix, sessionId: string, ...what: string[]) =>
  productKey(at, 'chat', [sessionId, ...what], `s${chatShardOf(sessionId)}`);

/** The Redis keys of the oracle's chat sessions (all of one session in one cluster slot). */
export const chatKeys = {
  /** Event stream of one chat session (tokens, tool calls, socket events). */
  events: (at: KeyPrefix, sessionId: string) => chat(at, sessionId, 'events'),
  /** The request id of a chat session's turn in flight (absent: none). */
  turn: (at: KeyPrefix, sessionId: string) => chat(at, sessionId, 'turn'),
  /** The session stream's last id before a turn began (a resumed stream replays from there). */
  turnStart: (at: KeyPrefix, sessionId: string, requestId: string) => chat(at, sessionId, 'turn-start', requestId),
  /**
   * Sorted set of the clients reading a turn as it runs (an SSE stream, a request waiting for its
   * JSON answer), scored by when each lapses unless renewed (ms): while one reads, a new message
   * does not replace the turn.
   */
  turnReaders: (at: KeyPrefix, sessionId: string, requestId: string) => chat(at, sessionId, 'turn-readers', requestId),
  /** Marks a request id as used by a turn of the session (an id names one turn only). */
  turnIdUsed: (at: KeyPrefix, sessionId: string, requestId: string) => chat(at, sessionId, 'turn-id', requestId),
  /**
   * Present while a turn waits for the client's answer to one call (browser tool, AG-UI
   * action), by the SHA-256 of its toolCallId: only such an answer is relayed, and only once.
   */
  awaited: (at: KeyPrefix, sessionId: string, toolCallDigest: string) => chat(at, sessionId, 'awaited', toolCallDigest),
};
