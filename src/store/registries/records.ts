import type { RegistryTable } from './registry.js';

export interface Household {
  did: string;
  phoneNumber?: string;
}

export interface Supplier {
  did: string;
  name: string;
  authorized: boolean;
  /** Raw Ed25519 public key, base64url. */
  publicKey: string;
  phoneNumber?: string;
}

export interface Product {
  id: string;
  name: string;
  approved: boolean;
}

interface MonitoringPlan {
  approvedProducts: string[];
  acceptedCredentialTypes: string[];
  claimWindowDays: number;
}

export interface Certificate {
  id: string;
  projectId: string;
  verifiedReduction: number;
  status: 'verified' | 'pending' | 'revoked';
  monitoringPlan: MonitoringPlan;
}

export const householdTable: RegistryTable<Household> = {
  table: 'households',
  idField: 'did',
  columns: { did: 'did', phoneNumber: 'phone_number' },
  unique: ['phoneNumber'],
};

export const supplierTable: RegistryTable<Supplier> = {
  table: 'suppliers',
  idField: 'did',
  columns: { did: 'did', name: 'name', authorized: 'authorized', publicKey: 'public_key', phoneNumber: 'phone_number' },
  unique: ['phoneNumber'],
};

export const productTable: RegistryTable<Product> = {
  table: 'products',
  idField: 'id',
  columns: { id: 'id', name: 'name', approved: 'approved' },
};

export const certificateTable: RegistryTable<Certificate> = {
  table: 'certificates',
  idField: 'id',
  columns: {
    id: 'id',
    projectId: 'project_id',
    verifiedReduction: 'verified_reduction',
    status: 'status',
    monitoringPlan: 'monitoring_plan',
  },
  numeric: ['verifiedReduction'],
};
