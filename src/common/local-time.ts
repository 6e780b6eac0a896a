/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A time as a phone shows it, in the programme's time zone (USSD_TIME_ZONE): `14:05` on the
 * same local day as `now`, `26/11 14:05` on another. Digits only, so every language reads it; no
 * zone name (people read their own clock, and "CAT" or "GMT+2" only takes screen space).
 */
export function localClock(timeZone: string): (at: Date, now: Date) => string {
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', month: '2-digit' });
  return (at, now) => (day.format(at) === day.format(now) ? time.format(at) : `${day.format(at)} ${time.format(at)}`);
}
