/**
 * A UUID-shaped id (version 8, RFC 9562's custom one) from the first 32 hex digits of a hash:
 * ids derived from what made them, so the same input always names the same thing.
 */
export function uuidShaped(hex: string): string {
  const variant = ((parseInt(hex.slice(16, 17), 16) & 3) | 8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
