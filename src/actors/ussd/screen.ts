/** The longest text a USSD screen shows (GSM 7-bit, 182 characters with the CON/END prefix). */
export const SCREEN_LIMIT = 182;

/**
 * Cuts a screen's body into pages that fit with their prefix and footer, on line breaks where
 * possible. Every page but the last offers `more` (reply 98); footer lines are kept on each page.
 */
export function paginate(body: string, footer: string, moreLabel: string): string[] {
  const prefix = 'CON '.length;
  const tail = footer ? `\n${footer}` : '';
  const more = `\n${moreLabel}`;
  const whole = body + tail;
  if (prefix + whole.length <= SCREEN_LIMIT) return [whole];
  const room = SCREEN_LIMIT - prefix - more.length - tail.length;
  const pages: string[] = [];
  let rest = body;
  while (prefix + rest.length + tail.length > SCREEN_LIMIT) {
    let cut = rest.lastIndexOf('\n', room);
    if (cut <= 0) cut = room;
    pages.push(rest.slice(0, cut) + more + tail);
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  pages.push(rest + tail);
  return pages;
}
