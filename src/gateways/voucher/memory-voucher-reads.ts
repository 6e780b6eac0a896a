import type { Redemption, VoucherState } from '../../actors/voucher/messages.js';
import { redemptionIdFor } from '../../actors/voucher/redemption-id.js';
import type { MemorySnapshotStore } from '../../store/memory-snapshot-store.js';
import { newestViewRows } from '../../store/memory-view-rows.js';
import type { VoucherFilter, VoucherReads } from './voucher-reads.js';

/**
 * Reads of vouchers from the memory store the product tier's runtime commits to: the same answers
 * as from PostgreSQL (the voucher's snapshot, its redemption records, its read model row for
 * lists), for the product tests that run hearth with no services.
 */
export class MemoryVoucherReads implements VoucherReads {
  constructor(private readonly store: MemorySnapshotStore) {}

  async get(id: string): Promise<VoucherState | undefined> {
    const slot = (await this.store.load('voucher', [id])).get(id);
    return (slot?.state as VoucherState | undefined) ?? undefined;
  }

  async findRedemption(redemptionId: string): Promise<{ voucher: VoucherState; redemption: Redemption } | undefined> {
    const record = this.store.records.get(`voucher\u0000redemption\u0000${redemptionId}`);
    const voucher = record && (await this.get(record.key));
    return record && voucher ? { voucher, redemption: structuredClone(record.body as Redemption) } : undefined;
  }

  /** By the record's derived id; the request facts of redemptions made before ids were derived never exist here. */
  redemptionByRequest(voucherId: string, requestId: string): Promise<Redemption | undefined> {
    const record = this.store.records.get(`voucher\u0000redemption\u0000${redemptionIdFor(voucherId, requestId)}`);
    return Promise.resolve(record ? structuredClone(record.body as Redemption) : undefined);
  }

  redemptions(
    voucherId: string,
    supplierDid: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: Redemption[]; total: number }> {
    // Records are kept in commit order, which is a voucher's message order.
    const all = [...this.store.records.values()]
      .filter((r) => r.type === 'voucher' && r.kind === 'redemption' && r.key === voucherId)
      .map((r) => r.body as Redemption)
      .filter((r) => !supplierDid || r.supplierDid === supplierDid);
    return Promise.resolve({ items: structuredClone(all.slice(offset, offset + limit)), total: all.length });
  }

  async list(
    f: VoucherFilter,
    today: string,
    limit: number,
    offset: number,
  ): Promise<{ items: VoucherState[]; total: number }> {
    const matching = newestViewRows(
      this.store,
      'voucher_views',
      (v) =>
        (!f.recipientDid || v.recipient_did === f.recipientDid) &&
        (!f.emissionCertificateId || v.certificate_id === f.emissionCertificateId) &&
        statusMatches(v, f.status, today),
    );
    const page = matching.slice(offset, offset + limit).map(([key]) => key);
    const states = await this.store.load('voucher', page);
    const items = page.flatMap((k) => (states.get(k)?.state as VoucherState | undefined) ?? []);
    return { items, total: matching.length };
  }
}

/** A voucher past its expiry date is `expired` to a reader, whatever its stored status says. */
function statusMatches(v: Record<string, unknown>, status: VoucherFilter['status'], today: string): boolean {
  if (!status) return true;
  if (status === 'expired') return v.status === 'active' && String(v.expiry_date) < today;
  if (status === 'active') return v.status === 'active' && String(v.expiry_date) >= today;
  return v.status === status;
}
