import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config.js';
import { dialled } from '../../../../src/gateways/ussd/dial-through.js';
import { localClock } from '../../../../src/common/local-time.js';
import { normalizePhone } from '../../../../src/gateways/ussd/phone-number.js';

const minimal = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  PIN_ENCRYPTION_KEY: 'a'.repeat(32),
  LOG_LEVEL: 'info',
};

describe('phone numbers as aggregators send them', () => {
  it('reads E.164 with or without its +, and national numbers in the default country, as one number', () => {
    for (const n of ['+260971234567', '260971234567', '0971234567', ' 0971 234 567 ', '00260971234567']) {
      expect(normalizePhone(n, 'ZM')).toBe('+260971234567');
    }
    expect(normalizePhone('0712345678', 'KE')).toBe('+254712345678');
  });

  it('reads digits that are no national number as international (a foreign SIM)', () => {
    expect(normalizePhone('254712345678', 'ZM')).toBe('+254712345678');
    expect(normalizePhone('+15550001111', 'ZM')).toBe('+15550001111');
  });

  it('refuses what is no phone number', () => {
    for (const n of ['', 'call me', '12345', '+1', '0'.repeat(40), '*1234#'])
      expect(normalizePhone(n, 'ZM')).toBe(undefined);
  });
});

describe('dial-through by service code', () => {
  const allowed = ['*1234#', '*384*7#'];

  it('keeps an allowed code and its text as they are', () => {
    expect(dialled('*1234#', '1*2', allowed)).toEqual({ serviceCode: '*1234#', text: '1*2' });
  });

  it('reads the extension of an allowed base code as inputs typed first', () => {
    expect(dialled('*1234*1*2#', '', allowed)).toEqual({ serviceCode: '*1234#', text: '1*2' });
    // The text typed since, or the cumulative text that already starts with the extension.
    expect(dialled('*1234*1*2#', '3', allowed)).toEqual({ serviceCode: '*1234#', text: '1*2*3' });
    expect(dialled('*1234*1*2#', '1*2*3', allowed)).toEqual({ serviceCode: '*1234#', text: '1*2*3' });
    expect(dialled('*384*7*1#', '', allowed)).toEqual({ serviceCode: '*384*7#', text: '1' });
  });

  it('refuses a code whose base is not allowed, or whose extension is not digits', () => {
    expect(dialled('*999*1#', '', allowed)).toBeUndefined();
    expect(dialled('*12345#', '', allowed)).toBeUndefined();
    expect(dialled('*1234**1#', '', allowed)).toBeUndefined();
    expect(dialled('*1234*1', '', allowed)).toBeUndefined();
  });
});

describe("times in the programme's time zone", () => {
  it('shows hours and minutes on the same local day, with the date on another', () => {
    const show = localClock('Africa/Lusaka');
    const now = new Date('2026-11-24T10:00:00Z');
    expect(show(new Date('2026-11-24T10:30:00Z'), now)).toBe('12:30');
    // 22:30 UTC is 00:30 the next day in Lusaka.
    expect(show(new Date('2026-11-24T22:30:00Z'), now)).toBe('25/11 00:30');
    expect(localClock('UTC')(new Date('2026-11-24T22:30:00Z'), now)).toBe('22:30');
  });

  it('takes USSD_TIME_ZONE and USSD_DEFAULT_COUNTRY from the config, and refuses unknown ones', () => {
    const c = loadConfig(minimal);
    expect(c.USSD_TIME_ZONE).toBe('Africa/Lusaka');
    expect(c.USSD_DEFAULT_COUNTRY).toBe('ZM');
    expect(loadConfig({ ...minimal, USSD_DEFAULT_COUNTRY: 'ke' }).USSD_DEFAULT_COUNTRY).toBe('KE');
    expect(() => loadConfig({ ...minimal, USSD_TIME_ZONE: 'Mars/Olympus' })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...minimal, USSD_DEFAULT_COUNTRY: 'XX' })).toThrowError(ConfigError);
  });
});
