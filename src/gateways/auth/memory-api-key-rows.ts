import type { ApiKeyRows, StoredKey } from './api-key-rows.js';

/** API keys in memory, for the product tier's tests. Not for deployments: nothing survives the process. */
export function memoryApiKeyRows(now: () => number = Date.now): ApiKeyRows {
  const keys = new Map<string, StoredKey>();
  const copy = (k: StoredKey | undefined): StoredKey | undefined => (k ? { ...k } : undefined);
  return {
    insert(k) {
      if (keys.has(k.id)) return Promise.reject(new Error(`api key ${k.id} exists`));
      const key: StoredKey = {
        id: k.id,
        hash: k.hash,
        role: k.role,
        ...(k.did ? { did: k.did } : {}),
        ...(k.label ? { label: k.label } : {}),
        createdAt: new Date(now()).toISOString(),
      };
      keys.set(k.id, key);
      return Promise.resolve({ ...key });
    },
    all() {
      // Oldest first, as the table's ORDER BY created_at: the map keeps the order keys were made in.
      return Promise.resolve([...keys.values()].map((k) => ({ ...k })));
    },
    revoke(id) {
      const k = keys.get(id);
      if (k && !k.revokedAt) k.revokedAt = new Date(now()).toISOString();
      return Promise.resolve(copy(k));
    },
    get(id) {
      return Promise.resolve(copy(keys.get(id)));
    },
  };
}
