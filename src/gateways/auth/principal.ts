import { AppError } from '../../errors/index.js';

export const roles = ['admin', 'implementer', 'supplier', 'regulator', 'household'] as const;
export type Role = (typeof roles)[number];

/** Who is calling, as established from their API key. */
export interface Principal {
  keyId: string;
  role: Role;
  /** The DID a supplier or household key acts for. */
  did?: string;
}

/** 403 unless the caller has one of `allowed`. */
export function requireRole(p: Principal, ...allowed: Role[]): void {
  if (!allowed.includes(p.role)) {
    throw new AppError('FORBIDDEN', `this operation needs one of the roles: ${allowed.join(', ')}`);
  }
}
