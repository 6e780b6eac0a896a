import type { Metrics } from '../../metrics.js';
import type { LiveSession, LiveSessions } from '../ussd/service.js';

/** A phone number an operator may see: the country code and the last two digits. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 5) return '•'.repeat(digits.length);
  return `+${digits.slice(0, 3)}${'•'.repeat(digits.length - 5)}${digits.slice(-2)}`;
}

export interface UssdView {
  live: { count: number; sessions: Array<Omit<LiveSession, 'phoneNumber'> & { phone: string }> };
  /** Session outcomes reported by aggregators to this gateway since it started. */
  outcomes: Array<{ status: string; serviceCode: string; network: string; sessions: number }>;
}

/**
 * The console's USSD page: the deployment's live sessions (the newest 200, phone numbers masked)
 * and the session outcomes this gateway has counted (`hearth_ussd_session_outcomes_total`).
 */
export async function readUssdView(live: LiveSessions, metrics: Metrics, now: Date): Promise<UssdView> {
  const [{ sessions, count }, outcomes] = await Promise.all([live.list(now, 200), metrics.ussdOutcomes.get()]);
  return {
    live: {
      count,
      sessions: sessions.map(({ phoneNumber, ...s }) => ({ ...s, phone: maskPhone(phoneNumber) })),
    },
    outcomes: outcomes.values
      .map((v) => ({
        status: String(v.labels.status ?? ''),
        serviceCode: String(v.labels.service_code ?? ''),
        network: String(v.labels.network ?? ''),
        sessions: v.value,
      }))
      .sort((a, b) => b.sessions - a.sessions),
  };
}
