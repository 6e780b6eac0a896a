import { describe, expect, it } from 'vitest';
import { cochranSampleSize, normalQuantile } from '../../../../src/actors/survey/sample-size.js';
import { buildTemplate, checkAnswers } from '../../../../src/actors/survey/template.js';

describe('sample size (Cochran)', () => {
  it('has the textbook values without a population', () => {
    expect(cochranSampleSize({ confidence: 0.95 }).required).toBe(385);
    expect(cochranSampleSize({ confidence: 0.9 }).required).toBe(271);
    expect(cochranSampleSize({ confidence: 0.99 }).required).toBe(664);
    expect(cochranSampleSize({ confidence: 0.95, marginOfError: 0.03 }).required).toBe(1068);
  });
  it('applies the finite-population correction', () => {
    expect(cochranSampleSize({ confidence: 0.95, population: 1000 }).required).toBe(278);
    expect(cochranSampleSize({ confidence: 0.95, population: 100 }).required).toBe(80);
  });
  it('uses an accurate normal quantile', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829, 5);
  });
});

describe('survey templates', () => {
  const all = { eligibilityCriteria: true, socioEconomicData: true, cookingPatterns: true, stovePerceptions: true };

  it('builds one section per flag, plus the type section, with a versioned id', () => {
    const t = buildTemplate('MonitoringSurvey', all);
    expect(t.sections.map((s) => s.id)).toEqual(['eligibility', 'socio_economic', 'cooking', 'perceptions', 'usage']);
    expect(t.templateId).toMatch(/^tpl-monitoring-[0-9a-f]{8}-v1$/);
    expect(t.validations.requiredSections).toHaveLength(5);
    expect(buildTemplate('MonitoringSurvey', all).templateId).toBe(t.templateId);
    expect(buildTemplate('BaselineSurvey', { ...all, stovePerceptions: false }).sections).toHaveLength(3);
  });

  const t = buildTemplate('BaselineSurvey', {
    eligibilityCriteria: true,
    socioEconomicData: false,
    cookingPatterns: true,
    stovePerceptions: false,
  });
  const good = {
    eligibility: { household_size: 5, primary_fuel: ['charcoal'], owns_clean_stove: ['no'] },
    cooking: { meals_per_day: 3, cooking_location: ['indoor'], fuel_spend_per_week: 100 },
  };

  it('accepts complete, valid answers', () => {
    expect(checkAnswers(t, good)).toEqual([]);
  });

  it('names every failing question', () => {
    const issues = checkAnswers(t, {
      eligibility: { household_size: 99, primary_fuel: ['coal'], owns_clean_stove: 'no' },
      cooking: { meals_per_day: 3, cooking_location: ['indoor'], extra: 1 },
      bogus: {},
    });
    const ids = issues.map((i) => `${i.sectionId}.${i.questionId}:${i.problem}`);
    expect(ids).toEqual(
      expect.arrayContaining([
        'bogus.*:unknown section',
        'cooking.extra:unknown question',
        'eligibility.household_size:must be between 1 and 30',
        'eligibility.primary_fuel:not an option: coal',
        'eligibility.owns_clean_stove:must be a non-empty array of options',
      ]),
    );
  });

  it('requires required questions and sections, and the completion threshold', () => {
    expect(checkAnswers(t, { eligibility: good.eligibility }).map((i) => i.problem)).toContain(
      'required section missing',
    );
    const missing = checkAnswers(t, { ...good, cooking: { meals_per_day: 2 } });
    expect(missing.map((i) => `${i.questionId}:${i.problem}`)).toContain('cooking_location:required');
    expect(missing.some((i) => i.problem.startsWith('completion'))).toBe(true);
  });
});
