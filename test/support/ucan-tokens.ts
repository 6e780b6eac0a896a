/** UCAN tokens as ixo oracle clients mint them (shared with the benchmark). */
export { oracleIdentity, ucanUser } from '../../bench/lib/ucan.js';
