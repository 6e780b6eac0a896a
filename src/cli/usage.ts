/** A command line the CLI cannot run: exit code 2, with what to type instead. */
export class UsageError extends Error {}

export const USAGE = `hearth: operate a hearth deployment

  hearth keys list                                   API keys (admin)
  hearth keys create --role R [--did D] [--label L]  a new key, shown once
  hearth keys revoke <id>
  hearth dead-letters list [--type T] [--limit N]    newest first
  hearth dead-letters show <type> <partition> <id>
  hearth dead-letters replay <type/partition/id>...  back to its mailbox (recorded)
  hearth dead-letters discard <type/partition/id>... (recorded)
  hearth actions [--limit N]                         what operators did
  hearth health                                      the gateway's /health
  hearth tail <type> [partition] [--key K] [--count N]   mailbox entries as they arrive (REDIS_URL)
  hearth migrate                                     apply the migrations (DATABASE_URL)
  hearth ledger verify [height:hash ...]             check the ledger's hash chain (DATABASE_URL)

Options: --url U (HEARTH_URL, default http://127.0.0.1:3000), --api-key K (HEARTH_API_KEY,
an admin key), --json (machine-readable output). Exit codes: 0 done, 1 refused or failed,
2 usage, 3 hearth not reachable, 4 not found.
`;
