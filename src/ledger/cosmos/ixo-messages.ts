import { Registry } from '@cosmjs/proto-signing';
import { defaultRegistryTypes } from '@cosmjs/stargate';
// The package's export map refuses `cosmjs-types/binary.js` (`"./*.js": null`), so the bare subpath it is.
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';

export const msgSubmitClaimTypeUrl = '/ixo.claims.v1beta1.MsgSubmitClaim';

/**
 * The part of ixo's `MsgSubmitClaim` that hearth fills in. Fields 7 (amount) and 8 (cw20_payment) pay
 * the agent for a claim; anchoring pays nobody, so they are never written, and decoding skips them.
 */
export interface MsgSubmitClaim {
  collectionId: string;
  claimId: string;
  agentDid: string;
  agentAddress: string;
  adminAddress: string;
  useIntent: boolean;
}

function emptyClaim(): MsgSubmitClaim {
  return { collectionId: '', claimId: '', agentDid: '', agentAddress: '', adminAddress: '', useIntent: false };
}

// Wire tags: (field number << 3) | wire type; 2 = length-delimited (strings), 0 = varint (bool).
const stringFields = [
  [1, 'collectionId'],
  [2, 'claimId'],
  [3, 'agentDid'],
  [4, 'agentAddress'],
  [5, 'adminAddress'],
] as const;
const useIntentTag = (6 << 3) | 0;

/**
 * Hand-written codec in the shape cosmjs' Registry accepts (telescope/ts-proto style: encode, decode,
 * fromPartial), because cosmjs-types does not ship ixo's modules. Defaults are omitted on the wire,
 * as proto3 encoders do, so the bytes match what ixo's own Go code would produce.
 */
export const MsgSubmitClaimCodec = {
  typeUrl: msgSubmitClaimTypeUrl,

  encode(message: MsgSubmitClaim, writer: BinaryWriter = BinaryWriter.create()): BinaryWriter {
    for (const [field, key] of stringFields) {
      const value = message[key];
      if (value !== '') writer.uint32((field << 3) | 2).string(value);
    }
    if (message.useIntent) writer.uint32(useIntentTag).bool(true);
    return writer;
  },

  decode(input: BinaryReader | Uint8Array, length?: number): MsgSubmitClaim {
    const reader = input instanceof BinaryReader ? input : new BinaryReader(input);
    const end = length === undefined ? reader.len : reader.pos + length;
    const message = emptyClaim();
    while (reader.pos < end) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const stringField = stringFields.find(([n]) => n === field);
      if (stringField && (tag & 7) === 2) message[stringField[1]] = reader.string();
      else if (tag === useIntentTag) message.useIntent = reader.bool();
      else reader.skipType(tag & 7);
    }
    return message;
  },

  fromPartial(object: Partial<MsgSubmitClaim>): MsgSubmitClaim {
    return {
      collectionId: object.collectionId ?? '',
      claimId: object.claimId ?? '',
      agentDid: object.agentDid ?? '',
      agentAddress: object.agentAddress ?? '',
      adminAddress: object.adminAddress ?? '',
      useIntent: object.useIntent ?? false,
    };
  },
};

/** The stargate default types (so TxBody, bank, etc. still encode) plus ixo's MsgSubmitClaim. */
export function ledgerRegistry(): Registry {
  const registry = new Registry(defaultRegistryTypes);
  registry.register(msgSubmitClaimTypeUrl, MsgSubmitClaimCodec);
  return registry;
}
