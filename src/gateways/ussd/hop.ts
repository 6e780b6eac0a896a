import type { CountryCode } from 'libphonenumber-js';
import type { Asker } from '../../actors/runtime/asker.js';
import { t, DEFAULT_LANGUAGE } from '../../actors/ussd/catalog/index.js';
import type { Logger } from '../../log.js';
import type { LiveSessions } from './live-sessions.js';
import type { PhoneDirectory } from './phone-directory.js';
import type { PinStore } from './pin-store.js';
import type { PhoneLanguage } from './phone-language.js';
import type { PhoneRateLimit } from './rate-limit.js';
import { carryOut, type WorkDeps } from './work-orders.js';
import type { Unserved, UssdRequest } from './request.js';
import { dialled } from './dial-through.js';
import { ussdRef } from '../../actors/ussd/messages.js';

/**
 * Work orders carried out within one request at most: a flow needs one or two, a dial-through
 * that sets a PIN, picks a language and redeems needs four; more means a flow that loops.
 */
const MAX_ORDERS = 8;

export interface HopDeps {
  client: Asker;
  directory: PhoneDirectory;
  pins: PinStore;
  /** The language a phone chose before (looked up only with two or more installed). */
  languages: PhoneLanguage;
  rate: PhoneRateLimit;
  live: LiveSessions;
  work: WorkDeps;
  serviceCodes: readonly string[];
  /** USSD_DEFAULT_COUNTRY: national phone numbers are read in it. */
  defaultCountry: CountryCode;
  /** Counts a request answered with an END line instead of its screen. */
  unserved: (reason: Unserved) => void;
  /** Seals the request's text for its trip through Redis (it carries PIN digits). */
  seal: (text: string) => string;
  clock: () => Date;
  log: Logger;
}

/** An `END` line in the default language (the phone's own is not known before its session). */
export const endLine = (key: Parameters<typeof t>[1]): string => `END ${t(DEFAULT_LANGUAGE, key)}`;

/**
 * One USSD request: allowlist and rate limit, then the session actor, carrying out the work it
 * asks for (a PIN check, a redemption) and handing back the result, until it shows a screen.
 * Every failure the phone can be told about is a 200 `END` line: an aggregator drops a session
 * on anything but 200.
 */
export async function ussdHop(d: HopDeps, sent: UssdRequest): Promise<string> {
  const dial = dialled(sent.serviceCode, sent.text, d.serviceCodes);
  if (!dial) {
    d.unserved('service_code');
    return endLine('common.badService');
  }
  const req = { ...sent, ...dial };
  const now = d.clock();
  try {
    if (!(await d.rate.allow(req.phoneNumber, now))) {
      d.unserved('rate_limited');
      return endLine('common.rateLimited');
    }
    const owner = await d.directory.owner(req.phoneNumber);
    const [pinSet, lang] = await Promise.all([
      owner.did ? d.pins.isSet(req.phoneNumber, owner.did) : false,
      d.languages.of(req.phoneNumber),
    ]);
    let reply = await d.client.ask(ussdRef, req.sessionId, {
      kind: 'hop',
      sealedText: d.seal(req.text),
      phoneNumber: req.phoneNumber,
      serviceCode: req.serviceCode,
      audience: owner.audience,
      pinSet,
      ...(lang ? { lang } : {}),
    });
    for (let i = 0; reply.kind === 'work' && i < MAX_ORDERS; i++) {
      const order = { id: reply.intentId, intent: reply.intent };
      const result = await carryOut(d.work, order, req.phoneNumber, owner);
      reply = await d.client.ask(ussdRef, req.sessionId, {
        kind: 'resolve',
        intentId: reply.intentId,
        result,
        sealedText: d.seal(req.text),
      });
    }
    if (reply.kind === 'work') {
      d.unserved('unavailable');
      return endLine('common.unavailable');
    }
    // The session has moved on whatever happens here: a list the operators read cannot cost
    // the phone its screen, nor hold it back. Not awaited: the touch goes with this event-loop
    // turn's others, on the connection a list through this gateway takes after it (on a
    // cluster, the node's own: live-sessions.ts).
    void d.live
      .touch(
        {
          sessionId: req.sessionId,
          phoneNumber: req.phoneNumber,
          serviceCode: req.serviceCode,
          state: reply.state,
          startedAt: reply.startedAt,
          lastActivityAt: now.toISOString(),
        },
        reply.end,
      )
      .catch((err: unknown) =>
        d.log.warn(
          { err: err instanceof Error ? err.message : String(err), sessionId: req.sessionId },
          'live-session index not updated',
        ),
      );
    return reply.text;
  } catch (err) {
    d.log.warn({ err: err instanceof Error ? err.message : String(err), sessionId: req.sessionId }, 'ussd hop failed');
    d.unserved('unavailable');
    return endLine('common.unavailable');
  }
}
