import { z } from 'zod';

/**
 * The fields every message of the token conversion flow's actors shares, checked alike on every
 * actor: amounts are whole micro-units as decimal strings (a bigint does not survive JSON).
 */
export const micro = z.string().regex(/^[1-9][0-9]{0,24}$/, 'a positive whole number of micro-units');
/** A least amount to accept: 0 (any) or more micro-units. */
export const microOrZero = z.string().regex(/^(0|[1-9][0-9]{0,24})$/, 'a whole number of micro-units');
export const asset = z.string().regex(/^[A-Z][A-Z0-9]{1,11}$/, 'an asset symbol such as CARBON');
/** A step's id, which its receiver applies once (a saga's `<id>:hold`, a deposit's id). */
export const stepId = z.string().min(1).max(200);
