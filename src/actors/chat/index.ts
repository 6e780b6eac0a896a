import type { ActorDefinition } from '../runtime/types.js';
import { decideChat } from './logic.js';
import { chatMessages, type ChatMessage, type ChatSession } from './messages.js';

export const chatSessionActor: ActorDefinition<ChatSession, ChatMessage> = {
  type: 'chat',
  messages: chatMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideChat,
  view: {
    table: 'chat_views',
    columns: ['owner_did', 'created_at', 'deleted', 'doc'],
    row: (c) => ({ owner_did: c.ownerDid, created_at: c.createdAt, deleted: c.deleted, doc: c }),
  },
};
