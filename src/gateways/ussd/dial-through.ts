/**
 * The base service code a dialled code belongs to, and the text with the dialled extension
 * first: `*1234*1*2#` is `*1234#` with `1*2` typed, so it reaches the screen that `*1234#` then
 * `1`, `2` reaches. The allowlist (ZM_SERVICE_CODES) names base codes only. An aggregator that
 * sends the whole dialled code with every request sends the text typed since, or the text with
 * the extension already in front (Africa's Talking's cumulative text): both read the same.
 * Undefined when no allowed code is the dialled one's base.
 */
export function dialled(
  serviceCode: string,
  text: string,
  allowed: readonly string[],
): { serviceCode: string; text: string } | undefined {
  if (allowed.includes(serviceCode)) return { serviceCode, text };
  if (!serviceCode.endsWith('#')) return undefined;
  // The longest base first: `*1234*5#` may itself be allowed beside `*1234#`.
  const bases = allowed.filter((b) => b.endsWith('#')).sort((a, b) => b.length - a.length);
  for (const base of bases) {
    const stem = `${base.slice(0, -1)}*`;
    if (!serviceCode.startsWith(stem)) continue;
    const extension = serviceCode.slice(stem.length, -1);
    if (!/^[0-9]+(\*[0-9]+)*$/.test(extension)) return undefined;
    if (text === '') return { serviceCode: base, text: extension };
    if (text === extension || text.startsWith(`${extension}*`)) return { serviceCode: base, text };
    return { serviceCode: base, text: `${extension}*${text}` };
  }
  return undefined;
}
