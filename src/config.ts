import { z } from 'zod';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import { redisUrlProblem } from './common/redis-target.js';
import { isTimeZone } from './common/local-time.js';

/**
 * The one schema over the environment. Nothing else in `src/` reads `process.env` (the entry
 * points add a `.env` file's variables to it first, see env-file.ts):
 * `main.ts` calls {@link loadConfig} once and passes the result down.
 */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const positiveInt = z.coerce.number().int().positive();

export const configSchema = z
  .object({
    /** PostgreSQL connection string. Required. */
    DATABASE_URL: z
      .string({ error: 'is required' })
      .min(1, 'is required')
      .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must start with postgres:// or postgresql://'),
    /** Schema that holds hearth's tables. Default `public`. */
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default('public'),
    /**
     * Redis connection string: one Redis (`redis://`, `rediss://`), or a Redis Cluster by its seed
     * nodes (`redis+cluster://host:port,host:port`, `rediss+cluster://`). Default
     * `redis://127.0.0.1:6379`.
     */
    REDIS_URL: z
      .string()
      .superRefine((v, ctx) => {
        const problem = redisUrlProblem(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default('redis://127.0.0.1:6379'),
    /** Prefix of every Redis key hearth writes. Default `hearth`. */
    REDIS_PREFIX: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,32}$/, 'must be 1-32 letters, digits, _ or -')
      .default('hearth'),
    /** Log level. Required. */
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], {
      error: 'is required: one of debug, info, warn, error',
    }),
    /** Log lines as JSON (default, for a log pipeline) or `pretty` (colour, one line each, for a terminal). */
    LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).default('json'),
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** HTTP port. Default 3000; 0 picks a free port. */
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Interface to listen on. Default `0.0.0.0`. */
    HOST: z.string().min(1).default('0.0.0.0'),
    /** Which parts run in this process: gateway (HTTP), worker (actors) or both. Default `all`. */
    ROLE: z.enum(['all', 'gateway', 'worker']).default('all'),
    /** Partitions per actor type (fixed for the life of a deployment). Default 16. */
    ACTOR_PARTITIONS: positiveInt.max(1024).default(16),
    /** How long a partition lease lives without renewal, ms. Default 10000. */
    LEASE_TTL_MS: positiveInt.min(300).default(10_000),
    /** Deadline of an `ask()` when the caller gives none, ms. Default 5000. */
    ASK_TIMEOUT_MS: positiveInt.default(5_000),
    /** Asks in flight per gateway before new ones are refused with 503. Default 10000. */
    ASK_MAX_IN_FLIGHT: positiveInt.default(10_000),
    /** Entries read from a mailbox per batch. Default 256. */
    MAILBOX_BATCH: positiveInt.max(10_000).default(256),
    /** Deliveries of one message before it goes to the dead-letter stream. Default 5. */
    MAX_DELIVERIES: positiveInt.max(100).default(5),
    /** Largest accepted request body, bytes. Default 1 MiB. */
    MAX_BODY_BYTES: positiveInt.default(1024 * 1024),
    /** How long shutdown waits for in-flight requests and batches, ms. Default 10000. */
    SHUTDOWN_GRACE_MS: positiveInt.default(10_000),
    /**
     * Longest a request may take before it is answered 503 UNAVAILABLE, ms: a store that stops
     * answering (a cut network) must not hold clients for ever. Streams and the oracle's
     * model-bound routes are exempt. Default 30000.
     */
    REQUEST_DEADLINE_MS: positiveInt.min(100).default(30_000),
    /**
     * How often each process asks PostgreSQL `select 1` on a connection of its own, ms. While it
     * is down, routes that need it answer 503 UNAVAILABLE at once. Default 250.
     */
    DATABASE_PROBE_INTERVAL_MS: positiveInt.min(50).max(60_000).default(250),
    /** A probe not answered by then counts as PostgreSQL down (a silent network), ms. Default 500. */
    DATABASE_PROBE_TIMEOUT_MS: positiveInt.min(50).max(60_000).default(500),
    /** Requests per minute per API key on /v1 (as many at once); 0: no limit. Default 3000. */
    RATE_LIMIT_API_KEY_PER_MINUTE: z.coerce.number().int().min(0).default(3_000),
    /** Requests per minute per DID on the oracle's routes (as many at once); 0: no limit. Default 600. */
    RATE_LIMIT_DID_PER_MINUTE: z.coerce.number().int().min(0).default(600),
    /** Failed authentications per minute per client address before it is refused; 0: no limit. Default 30. */
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(30),
    /** Bootstrap admin API key (at least 32 characters); only its hash is kept in memory. Default none. */
    HEARTH_ADMIN_KEY: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
    /** Expose the diagnostic echo/counter routes under /v1/diagnostics. Default false. */
    HEARTH_DIAGNOSTICS: bool.default(false),
    /** Where ledger blocks go: `journal` (Postgres, hash-chained) or `cosmos` (journal + one tx per block). Default journal. */
    LEDGER_BACKEND: z.enum(['journal', 'cosmos']).default('journal'),
    /** The stablecoin CARBON converts to (its symbol in accounts, the pool `CARBON-<symbol>` and the ledger). Default USDC. */
    STABLECOIN_SYMBOL: z
      .string()
      .regex(/^[A-Z][A-Z0-9]{1,11}$/, 'must be 2-12 capital letters and digits, e.g. USDC')
      .refine((s) => s !== 'CARBON' && s !== 'ITMO', 'must not be CARBON or ITMO')
      .default('USDC'),
    /** How long a conversion request waits for its saga to end before answering 202, ms. Default 5000. */
    CONVERSION_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    /** A conversion or payout saga that has not moved for this long is sent its pending step again, ms. Default 60000. */
    SAGA_RESUME_AFTER_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
    /** Entries per ledger block at most. Default 500. */
    LEDGER_BATCH_SIZE: positiveInt.max(10_000).default(500),
    /** Longest an entry waits for its block, ms (a block is cut at LEDGER_BATCH_SIZE entries or this). Default 200. */
    LEDGER_BATCH_MS: positiveInt.max(60_000).default(200),
    /** Mnemonic of the account that signs ledger transactions (cosmos backend only). Never logged. */
    LEDGER_MNEMONIC: z.string().optional(),
    /** Chain id of the ledger network. Default `ixo-5`. */
    LEDGER_CHAIN_ID: z.string().min(1).default('ixo-5'),
    /** Gas price with its denom. Default `0.025uixo`. */
    LEDGER_GAS_PRICE: z
      .string()
      .regex(/^\d+(\.\d+)?[a-z][a-z0-9/]{2,127}$/, 'must be an amount and a denom, e.g. 0.025uixo')
      .default('0.025uixo'),
    /** Gas per message of a block's transaction (plus 100000 per transaction). Default 150000. */
    LEDGER_GAS_PER_MESSAGE: positiveInt.default(150_000),
    /** Bech32 address prefix of the signer. Default `ixo`. */
    LEDGER_ADDRESS_PREFIX: z
      .string()
      .regex(/^[a-z]{1,16}$/)
      .default('ixo'),
    /** Account that pays the fees through a fee grant (bech32). Default none: the signer pays. */
    LEDGER_FEE_GRANTER: z
      .string()
      .regex(/^[a-z]{1,16}1[02-9ac-hj-np-z]{38,58}$/, 'must be a bech32 address')
      .optional(),
    /** Claim collection each entry is submitted to (cosmos backend). */
    LEDGER_CLAIM_COLLECTION: z.string().min(1).default('hearth'),
    /** DID of the agent submitting the claims (cosmos backend). Default `did:ixo:hearth`. */
    LEDGER_AGENT_DID: z
      .string()
      .regex(/^did:[a-z0-9]+:.+$/, 'must be a DID')
      .default('did:ixo:hearth'),
    /** Ledger network RPC endpoint (CometBFT JSON-RPC). */
    NETWORK_BLOCKCHAIN_URL: z.url().default('https://impacthub.ixo.world/rpc/'),
    /** Ledger network API endpoint (REST). */
    NETWORK_API_URL: z.url().default('https://impacthub.ixo.world/rest/'),
    /** Key that protects USSD PINs (spec 002): exactly 32 characters, e.g. 16 random bytes as hex. Required. */
    PIN_ENCRYPTION_KEY: z
      .string({ error: 'is missing' })
      .length(32, 'must be exactly 32 characters (16 random bytes as hex: openssl rand -hex 16)'),
    /** USSD service codes this gateway answers, comma-separated (spec 002). Default `*1234#`. */
    ZM_SERVICE_CODES: z
      .string()
      .default('*1234#')
      .transform((v) =>
        v
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean),
      )
      .refine((codes) => codes.length > 0 && codes.every((c) => /^\*[0-9*]{1,20}#$/.test(c)), {
        message: 'must be USSD codes like *1234# separated by commas',
      }),
    /** Country of national phone numbers an aggregator sends (`0971…`), ISO 3166 alpha-2. Default `ZM`. */
    USSD_DEFAULT_COUNTRY: z
      .string()
      .default('ZM')
      .transform((c) => c.trim().toUpperCase())
      .refine((c): c is CountryCode => isSupportedCountry(c), { message: 'must be a country code such as ZM' }),
    /** Time zone of times a phone is shown (a PIN lock's end), IANA name. Default `Africa/Lusaka`. */
    USSD_TIME_ZONE: z
      .string()
      .default('Africa/Lusaka')
      .refine((zone) => isTimeZone(zone), { message: 'must be an IANA time zone such as Africa/Lusaka' }),
    /** Origins allowed by CORS (spec 001): `*` (default; no credentials) or a comma-separated list (credentials allowed). */
    CORS_ORIGIN: z.string().min(1).default('*'),
    /** The oracle's own DID (spec 001): the audience every UCAN must name. Unset: the oracle routes answer 503. */
    ORACLE_DID: z
      .string()
      .regex(/^did:(key|ixo):[A-Za-z0-9._:-]+$/, 'must be a did:key or did:ixo DID')
      .optional(),
    /** Where did:ixo DID documents are read, `{did}` standing for the DID. Default: the ixo REST API of NETWORK_API_URL. */
    DID_IXO_RESOLVER_URL: z
      .string()
      .refine((v) => /^https?:\/\/.+\{did\}/.test(v), 'must be an http(s) URL containing {did}')
      .optional(),
    /** An OpenAI-compatible chat completions API for the oracle's agent (unset: the embedded agent). */
    LLM_BASE_URL: z.url().optional(),
    /** Its API key (sent as a bearer token; never logged). */
    LLM_API_KEY: z.string().optional(),
    /** Its model, the default one. Default `gpt-4o-mini`. */
    LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
    /**
     * The models a message may ask for (`model`), comma-separated; `GET /models` lists them with
     * LLM_MODEL first as the default. Default: LLM_MODEL alone.
     */
    LLM_MODELS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean),
      )
      .refine((models) => models.every((m) => /^[A-Za-z0-9._:/@-]{1,200}$/.test(m)), {
        message: 'must be model ids (letters, digits, . _ : / @ -) separated by commas',
      }),
    /** Subscriptions for the credits plugin: GET `<url>?did=` → `{status, credits}`. Unset: no credits gate. */
    ORACLE_CREDITS_URL: z.url().optional(),
    /** Seconds the client has to answer a browser tool or an AG-UI action. Default 15 (wire reference). */
    ORACLE_CLIENT_CALL_SECONDS: positiveInt.max(600).default(15),
    /** Seconds between SSE heartbeat comments. Default 15 (wire reference); lower it behind a proxy with a shorter idle timeout. */
    ORACLE_SSE_HEARTBEAT_SECONDS: positiveInt.max(300).default(15),
    /**
     * Characters of a session's earlier conversation (messages, tool arguments and results) the
     * agent is given with each new message; the oldest whole turns are left out first, never
     * the system prompt or the new message. Default 24000 (about 6,000 tokens).
     */
    ORACLE_HISTORY_CHARS: z.coerce.number().int().min(0).max(2_000_000).default(24_000),
    /** The oracle's name in session records. Default `hearth`. */
    ORACLE_NAME: z.string().min(1).max(200).default('hearth'),
    /** The oracle's entity DID, shown in session records when set. */
    ORACLE_ENTITY_DID: z
      .string()
      .regex(/^did:[a-z0-9]+:.+$/, 'must be a DID')
      .optional(),
    /** Seconds a USSD session lives without input. Default 180. */
    USSD_IDLE_SECONDS: positiveInt.max(3_600).default(180),
    /** USSD requests per phone number per minute before the phone is asked to wait. Default 30. */
    USSD_RATE_PER_MINUTE: positiveInt.max(10_000).default(30),
  })
  .refine((c) => c.LEDGER_BACKEND !== 'cosmos' || (c.LEDGER_MNEMONIC ?? '').trim().split(/\s+/).length >= 12, {
    path: ['LEDGER_MNEMONIC'],
    message: 'is required with LEDGER_BACKEND=cosmos: a BIP-39 mnemonic of 12 or 24 words',
  });

export type Config = z.infer<typeof configSchema>;

const remedies: Record<string, string> = {
  DATABASE_URL: 'set it to a PostgreSQL URL, e.g. postgres://postgres@127.0.0.1:5432/hearth',
  LOG_LEVEL: 'set it to one of debug, info, warn, error',
  REDIS_URL: 'set it to a Redis URL, e.g. redis://127.0.0.1:6379',
  PIN_ENCRYPTION_KEY: 'set a 32-character key, e.g. the output of openssl rand -hex 16',
};

/** Spec wording that leads the line for some variables (spec 002: "Missing PIN encryption key"). */
const headlines: Record<string, string> = {
  PIN_ENCRYPTION_KEY: 'Missing PIN encryption key',
};

/** The key docker-compose.yml falls back to when none is set: fine for a try-out, never for real PINs. */
export const COMPOSE_TRY_OUT_PIN_KEY = '00000000local0compose0only000000';

/** The admin key docker-compose.yml falls back to: a try-out can call /v1 at once; never a deployment's. */
export const COMPOSE_TRY_OUT_ADMIN_KEY = 'local-compose-try-out-admin-key-0000';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws a {@link ConfigError} whose message is one line naming the variable and the fix. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  return parseEnv(configSchema, env);
}

/** Only what the database tools (`npm run migrate`, `npm run ledger:verify`) need. */
const databaseSchema = z.object({
  DATABASE_URL: configSchema.shape.DATABASE_URL,
  DATABASE_SCHEMA: configSchema.shape.DATABASE_SCHEMA,
  LOG_LEVEL: configSchema.shape.LOG_LEVEL.default('info'),
  LOG_FORMAT: configSchema.shape.LOG_FORMAT,
});

export function loadDatabaseConfig(env: Record<string, string | undefined>): z.infer<typeof databaseSchema> {
  return parseEnv(databaseSchema, env);
}

function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    const value = env[name];
    const problem = value === undefined ? 'is missing' : issue.message;
    const fix = remedies[name] ?? 'see .env.example';
    const headline = headlines[name] ? `${headlines[name]}: ` : '';
    return `${headline}${name} ${problem}: ${fix}`;
  });
  throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
}
