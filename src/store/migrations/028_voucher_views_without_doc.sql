-- A voucher's read model row held its whole document, the same JSON as its snapshot, and every
-- redemption wrote both (issue 38: 0.6 KB more per redemption sent to PostgreSQL and a row
-- written that no filter needed). The row now keeps only what reads filter and sort on, and is
-- written when one of those changes (an issue, a status change), not on every redemption; reads
-- take the document from the voucher's snapshot (src/gateways/vouchers/voucher-reads.ts).
ALTER TABLE voucher_views DROP COLUMN doc;
