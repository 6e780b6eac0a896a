import { StargateClient } from '@cosmjs/stargate';
import { connectComet, type CometClient } from '@cosmjs/tendermint-rpc';
import { AccountMissingError } from './anchor-errors.js';
import type { SignerAccount } from './anchor-types.js';

interface Connected {
  comet: CometClient;
  client: StargateClient;
}

/**
 * The RPC connection, opened on first use so that building the anchor (at startup) never needs the
 * chain. A failed connect is forgotten, so the next call tries again instead of failing forever.
 */
export class ChainConnection {
  private connecting: Promise<Connected> | undefined;

  constructor(private readonly rpcUrl: string) {}

  private connected(): Promise<Connected> {
    this.connecting ??= connectComet(this.rpcUrl).then(
      (comet) => ({ comet, client: StargateClient.create(comet) }),
      (err: unknown) => {
        this.connecting = undefined;
        throw err;
      },
    );
    return this.connecting;
  }

  async client(): Promise<StargateClient> {
    return (await this.connected()).client;
  }

  async status(): Promise<{ chainId: string; latestHeight: number }> {
    const status = await (await this.connected()).comet.status();
    return { chainId: status.nodeInfo.network, latestHeight: status.syncInfo.latestBlockHeight };
  }

  /** Account number and sequence from abci_query (committed state). */
  async signerAccount(address: string): Promise<SignerAccount> {
    const account = await (await this.client()).getAccount(address);
    if (!account) throw new AccountMissingError(address);
    return { accountNumber: Number(account.accountNumber), sequence: account.sequence };
  }

  close(): void {
    const connecting = this.connecting;
    this.connecting = undefined;
    void connecting?.then(
      ({ client }) => client.disconnect(),
      () => undefined, // a failed connect has nothing to close; its error went to whoever asked
    );
  }
}
