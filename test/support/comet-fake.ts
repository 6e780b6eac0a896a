import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';

/**
 * A CometBFT JSON-RPC node for tests, just deep enough for cosmjs' Comet38 client: `status`,
 * `abci_query` of the auth Account query, `broadcast_tx_sync` (with the SDK's sequence check) and
 * `tx_search` by hash. One signer account, whose existence and sequence tests can change under the
 * client's feet, as another process or a faucet would.
 */

export interface ReceivedTx {
  hash: string;
  bytes: Uint8Array;
  body: TxBody;
  authInfo: AuthInfo;
  /** Signer sequence the tx was signed at. */
  sequence: number;
  /** ABCI code the fake answered the broadcast with: 0 = accepted, -1 = a JSON-RPC error instead. */
  answeredCode: number;
}

interface IncludedTx {
  hash: string;
  bytes: Uint8Array;
  height: number;
  index: number;
  code: number;
  log: string;
}

export interface CometFakeOptions {
  chainId?: string;
  /** The signer's bech32 address; the only account the fake knows. */
  address: string;
  accountNumber?: number;
  sequence?: number;
  accountExists?: boolean;
  startHeight?: number;
}

type RpcResult = { result: unknown } | { error: { code: number; message: string; data: string } };

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').toUpperCase();
const hex = (bytes: number) => 'AB'.repeat(bytes);

export class CometFake {
  readonly chainId: string;
  readonly address: string;
  accountNumber: number;
  /** The account's next expected sequence (committed plus mempool, as CheckTx sees it). */
  sequence: number;
  accountExists: boolean;
  latestHeight: number;
  /**
   * How a duplicate broadcast is answered: real CometBFT nodes send a JSON-RPC error ("tx already
   * exists in cache"); some SDK paths answer ABCI code 19 instead.
   */
  duplicateAnswer: 'abci-code-19' | 'rpc-error' = 'abci-code-19';
  /** While true, accepted txs wait in the mempool until {@link produceBlock}. */
  holdBlocks = false;
  /** Code accepted txs get when executed in a block (non-zero simulates a failed tx). */
  deliverCode = 0;
  broadcastCount = 0;
  /**
   * Simulates a signer without funds: a tx whose fee is not granted by this address is refused with
   * insufficient funds (code 5), as the SDK's DeductFee ante step does before it checks the sequence.
   */
  requiredGranter: string | undefined;
  /** Answers this many coming tx_search calls with nothing, as a lagging indexer would. */
  searchMisses = 0;
  /** abci_query calls for the account: shows whether the client tracks its sequence itself. */
  accountQueries = 0;
  readonly received: ReceivedTx[] = [];
  private readonly seen = new Set<string>();
  private mempool: Array<{ hash: string; bytes: Uint8Array }> = [];
  private readonly included = new Map<string, IncludedTx>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    opts: CometFakeOptions,
  ) {
    this.chainId = opts.chainId ?? 'ixo-5';
    this.address = opts.address;
    this.accountNumber = opts.accountNumber ?? 42;
    this.sequence = opts.sequence ?? 0;
    this.accountExists = opts.accountExists ?? true;
    this.latestHeight = opts.startHeight ?? 1000;
  }

  static async start(opts: CometFakeOptions): Promise<CometFake> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new CometFake(server, `http://127.0.0.1:${port}/rpc/`, opts);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.serve(req, res));
    return fake;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  /** Includes every mempool tx in one new block. */
  produceBlock(): number {
    this.latestHeight += 1;
    this.mempool.forEach(({ hash, bytes }, index) => {
      const log = this.deliverCode === 0 ? '' : `claim failed (fake code ${this.deliverCode})`;
      this.included.set(hash, { hash, bytes, height: this.latestHeight, index, code: this.deliverCode, log });
    });
    this.mempool = [];
    return this.latestHeight;
  }

  /** Forgets which txs were seen, as a different node (or a restarted one) would not know them. */
  forgetCache(): void {
    this.seen.clear();
  }

  /** Height a tx was included at, if it was. */
  inclusionHeight(hash: string): number | undefined {
    return this.included.get(hash)?.height;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let id: unknown = -1;
      let answer: RpcResult;
      try {
        const call = parseCall(req, Buffer.concat(chunks).toString('utf8'));
        id = call.id;
        answer = this.dispatch(call.method, call.params);
      } catch (err) {
        answer = { error: { code: -32603, message: 'Internal error', data: String(err) } };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }));
    });
  }

  private dispatch(method: string, params: Record<string, unknown>): RpcResult {
    switch (method) {
      case 'status':
        return { result: this.status() };
      case 'abci_query':
        return { result: { response: this.abciQuery(text(params.path), text(params.data)) } };
      case 'broadcast_tx_sync':
        return this.broadcast(decodeTxParam(text(params.tx)));
      case 'tx_search':
        return { result: this.txSearch(text(params.query)) };
      default:
        return { error: { code: -32601, message: 'Method not found', data: method } };
    }
  }

  private status() {
    const time = new Date().toISOString();
    return {
      node_info: {
        protocol_version: { p2p: '8', block: '11', app: '0' },
        id: 'c864416ec2c46e8abeee1f7846365e98c551ab4f',
        listen_addr: 'tcp://0.0.0.0:26656',
        network: this.chainId,
        // cosmjs picks its Comet38 adaptor from this prefix.
        version: '0.38.17',
        channels: '40202122233038606100',
        moniker: 'comet-fake',
        other: { tx_index: 'on', rpc_address: 'tcp://0.0.0.0:26657' },
      },
      sync_info: {
        latest_block_hash: hex(32),
        latest_app_hash: hex(32),
        latest_block_height: String(this.latestHeight),
        latest_block_time: time,
        earliest_block_hash: hex(32),
        earliest_app_hash: hex(32),
        earliest_block_height: '1',
        earliest_block_time: time,
        catching_up: false,
      },
      validator_info: {
        address: hex(20),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.alloc(32, 7).toString('base64') },
        voting_power: '10',
      },
    };
  }

  private abciQuery(path: string, dataHex: string) {
    const base = { code: 0, log: '', info: '', index: '0', key: null, value: null, proofOps: null, codespace: '' };
    const height = String(this.latestHeight);
    if (path !== '/cosmos.auth.v1beta1.Query/Account') {
      return { ...base, code: 6, codespace: 'sdk', log: `unknown query path: ${path}`, height };
    }
    this.accountQueries += 1;
    const { address } = QueryAccountRequest.decode(Buffer.from(dataHex, 'hex'));
    if (address !== this.address || !this.accountExists) {
      // The shape a real node answers with; cosmjs' getAccount matches "rpc error: code = NotFound".
      const log = `rpc error: code = NotFound desc = account ${address} not found: key not found`;
      return { ...base, code: 22, codespace: 'sdk', log, height };
    }
    const account = BaseAccount.fromPartial({
      address,
      accountNumber: BigInt(this.accountNumber),
      sequence: BigInt(this.sequence),
    });
    const value = QueryAccountResponse.encode({
      account: { typeUrl: '/cosmos.auth.v1beta1.BaseAccount', value: BaseAccount.encode(account).finish() },
    }).finish();
    return { ...base, value: Buffer.from(value).toString('base64'), height };
  }

  private broadcast(bytes: Uint8Array): RpcResult {
    this.broadcastCount += 1;
    const hash = sha256Hex(bytes);
    const raw = TxRaw.decode(bytes);
    const body = TxBody.decode(raw.bodyBytes);
    const authInfo = AuthInfo.decode(raw.authInfoBytes);
    const sequence = Number(authInfo.signerInfos[0]?.sequence ?? -1n);
    const answer = (code: number, log: string): RpcResult => {
      this.received.push({ hash, bytes, body, authInfo, sequence, answeredCode: code });
      return { result: { code, data: '', log, codespace: code === 0 ? '' : 'sdk', hash } };
    };
    // CometBFT checks its cache before asking the app, so a duplicate never reaches the sequence check.
    if (this.seen.has(hash)) {
      if (this.duplicateAnswer === 'abci-code-19') return answer(19, 'tx already exists in cache');
      this.received.push({ hash, bytes, body, authInfo, sequence, answeredCode: -1 });
      return { error: { code: -32603, message: 'Internal error', data: 'tx already exists in cache' } };
    }
    if (!this.accountExists) return answer(9, `account ${this.address} does not exist: unknown address`);
    const fee = authInfo.fee;
    if (this.requiredGranter !== undefined && fee?.granter !== this.requiredGranter) {
      const owed = fee?.amount.map((c) => `${c.amount}${c.denom}`).join(',') ?? '0';
      return answer(5, `spendable balance 0uixo is smaller than ${owed}: insufficient funds`);
    }
    if (sequence !== this.sequence) {
      return answer(
        32,
        `account sequence mismatch, expected ${this.sequence}, got ${sequence}: incorrect account sequence`,
      );
    }
    this.sequence += 1;
    this.seen.add(hash);
    this.mempool.push({ hash, bytes });
    if (!this.holdBlocks) this.produceBlock();
    return answer(0, '');
  }

  private txSearch(query: string) {
    const hash = /^tx\.hash\s*=\s*'([0-9A-Fa-f]{64})'$/.exec(query.trim())?.[1]?.toUpperCase();
    const missed = this.searchMisses > 0;
    if (missed) this.searchMisses -= 1;
    const tx = hash === undefined || missed ? undefined : this.included.get(hash);
    const txs = tx
      ? [
          {
            hash: tx.hash,
            height: String(tx.height),
            index: tx.index,
            tx_result: {
              code: tx.code,
              data: '',
              log: tx.log,
              info: '',
              gas_wanted: '400000',
              gas_used: '250000',
              events: [],
              codespace: tx.code === 0 ? '' : 'claims',
            },
            tx: Buffer.from(tx.bytes).toString('base64'),
          },
        ]
      : [];
    return { txs, total_count: String(txs.length) };
  }
}

/** cosmjs sends base64; the URI form takes 0x-prefixed hex too. */
function decodeTxParam(tx: string): Uint8Array {
  return tx.startsWith('0x') ? Buffer.from(tx.slice(2), 'hex') : Buffer.from(tx, 'base64');
}

/** JSON-RPC over POST (what cosmjs sends) or CometBFT's URI form, GET /<method>?arg="value". */
function parseCall(
  req: IncomingMessage,
  body: string,
): { id: unknown; method: string; params: Record<string, unknown> } {
  if (req.method === 'POST') {
    const call = JSON.parse(body) as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
    return { id: call.id ?? -1, method: String(call.method), params: call.params ?? {} };
  }
  const url = new URL(req.url ?? '/', 'http://fake');
  const params: Record<string, unknown> = {};
  url.searchParams.forEach((value, key) => {
    params[key] = value.replace(/^"(.*)"$/s, '$1');
  });
  return { id: -1, method: url.pathname.split('/').filter(Boolean).pop() ?? '', params };
}
