import { describe, expect, it } from 'vitest';
import { catalogProblems } from '../../../../src/actors/ussd/catalog/catalog-check.js';
import { en } from '../../../../src/actors/ussd/catalog/en.js';
import { catalogs, needsReview } from '../../../../src/actors/ussd/catalog/index.js';

/** GSM 03.38's basic alphabet: what every handset shows (one character each). */
const GSM7 = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);

describe('the USSD catalogs', () => {
  it('installs Nyanja beside English', () => {
    expect(Object.keys(catalogs).sort()).toEqual(['en', 'ny']);
  });

  it.each(Object.keys(catalogs))('has every key of %s, with the placeholders of English', (lang) => {
    expect(catalogProblems(en, catalogs[lang]!)).toEqual([]);
  });

  it('finds a missing key, a changed placeholder and an unknown key', () => {
    const { 'redeem.done': _gone, ...rest } = { ...en };
    expect(catalogProblems(en, rest)).toEqual(['redeem.done: missing']);
    expect(catalogProblems(en, { ...en, 'pin.wrong': 'PIN yolakwika. {lft} ' })).toEqual([
      'pin.wrong: placeholders {lft} instead of {left}',
    ]);
    expect(catalogProblems(en, { ...en, 'redeem.typo': 'x' })).toEqual(['redeem.typo: not a key of the menus']);
  });

  it('marks what a machine drafted, by keys that exist', () => {
    for (const [lang, keys] of Object.entries(needsReview)) {
      expect(keys.filter((k) => !(k in catalogs[lang]!))).toEqual([]);
    }
  });

  it.each(Object.keys(catalogs))('writes %s in the GSM alphabet every handset shows', (lang) => {
    // Placeholders are filled in before a screen is sent: their braces are never shown.
    const shown = (text: string) => text.replace(/\{\w+\}/g, '');
    const outside = Object.entries(catalogs[lang]!).filter(([, text]) => [...shown(text)].some((ch) => !GSM7.has(ch)));
    expect(outside).toEqual([]);
  });
});
