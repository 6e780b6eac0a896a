-- Chat sessions are actor snapshots (type 'chat'); a user's list reads them by owner.
CREATE INDEX chat_sessions_by_owner ON actor_snapshots ((state ->> 'ownerDid'), (state ->> 'createdAt'))
  WHERE type = 'chat';
