import { createHash } from 'node:crypto';
import { z } from 'zod';

export const surveyTypes = ['BaselineSurvey', 'FollowUpSurvey', 'MonitoringSurvey'] as const;
export type SurveyType = (typeof surveyTypes)[number];

export interface TemplateFlags {
  eligibilityCriteria: boolean;
  socioEconomicData: boolean;
  cookingPatterns: boolean;
  stovePerceptions: boolean;
}

type Question =
  | { id: string; type: 'multiple_choice'; required: boolean; options: string[] }
  | { id: string; type: 'number'; required: boolean; validation: { min: number; max: number } };

interface Section {
  id: string;
  questions: Question[];
}

export interface SurveyTemplate {
  templateId: string;
  sections: Section[];
  validations: { requiredSections: string[]; completionThreshold: number };
}

/** A template as the API answers it (`GET /v1/templates/:templateId`, and inside a survey). */
export const surveyTemplateSchema = z.strictObject({
  templateId: z.string(),
  sections: z.array(
    z.strictObject({
      id: z.string(),
      questions: z.array(
        z.discriminatedUnion('type', [
          z.strictObject({
            id: z.string(),
            type: z.literal('multiple_choice'),
            required: z.boolean(),
            options: z.array(z.string()),
          }),
          z.strictObject({
            id: z.string(),
            type: z.literal('number'),
            required: z.boolean(),
            validation: z.strictObject({ min: z.number(), max: z.number() }),
          }),
        ]),
      ),
    }),
  ),
  validations: z.strictObject({ requiredSections: z.array(z.string()), completionThreshold: z.number() }),
}) satisfies z.ZodType<SurveyTemplate>;

/** Bump when the question bank changes: it is the version suffix of every template id. */
const TEMPLATE_VERSION = 1;

const mc = (id: string, options: string[], required = true): Question => ({
  id,
  type: 'multiple_choice',
  required,
  options,
});
const num = (id: string, min: number, max: number, required = true): Question => ({
  id,
  type: 'number',
  required,
  validation: { min, max },
});

/** The question bank: one section per template flag, plus one per survey type. */
const flagSections: Record<keyof TemplateFlags, Section> = {
  eligibilityCriteria: {
    id: 'eligibility',
    questions: [
      num('household_size', 1, 30),
      mc('primary_fuel', ['firewood', 'charcoal', 'kerosene', 'lpg', 'electricity', 'other']),
      mc('owns_clean_stove', ['yes', 'no']),
    ],
  },
  socioEconomicData: {
    id: 'socio_economic',
    questions: [
      num('monthly_income', 0, 10_000_000),
      mc('education_level', ['none', 'primary', 'secondary', 'tertiary']),
      mc('income_sources', ['farming', 'trade', 'wages', 'remittances', 'other'], false),
    ],
  },
  cookingPatterns: {
    id: 'cooking',
    questions: [
      num('meals_per_day', 0, 10),
      mc('cooking_location', ['indoor', 'outdoor', 'both']),
      num('fuel_spend_per_week', 0, 1_000_000, false),
    ],
  },
  stovePerceptions: {
    id: 'perceptions',
    questions: [
      mc('satisfaction', ['1', '2', '3', '4', '5']),
      mc('would_recommend', ['yes', 'no']),
      mc('concerns', ['cost', 'fuel', 'cooking_time', 'taste', 'none'], false),
    ],
  },
};

const typeSections: Record<SurveyType, Section | undefined> = {
  BaselineSurvey: undefined,
  FollowUpSurvey: {
    id: 'installation',
    questions: [
      mc('installation_quality', ['good', 'fair', 'poor']),
      mc('technical_problems', ['none', 'minor', 'major']),
    ],
  },
  MonitoringSurvey: {
    id: 'usage',
    questions: [num('stove_days_per_week', 0, 7), num('fuel_kg_per_week', 0, 1_000)],
  },
};

/** Builds the template of a survey from its type and flags; the same inputs give the same id. */
export function buildTemplate(type: SurveyType, flags: TemplateFlags): SurveyTemplate {
  const sections = [
    ...(Object.keys(flagSections) as Array<keyof TemplateFlags>).filter((f) => flags[f]).map((f) => flagSections[f]),
    ...(typeSections[type] ? [typeSections[type]] : []),
  ];
  const digest = createHash('sha256')
    .update(`${type}:${sections.map((s) => s.id).join(',')}`)
    .digest('hex')
    .slice(0, 8);
  return {
    templateId: `tpl-${type.replace(/Survey$/, '').toLowerCase()}-${digest}-v${TEMPLATE_VERSION}`,
    sections,
    validations: { requiredSections: sections.map((s) => s.id), completionThreshold: 0.8 },
  };
}

export interface AnswerIssue {
  questionId: string;
  sectionId: string;
  problem: string;
}

/**
 * Checks answers (section id → question id → answer) against a template: unknown sections and
 * questions, answer types, options, number bounds, required questions and sections, and the
 * completion threshold. Returns every failing question.
 */
export function checkAnswers(t: SurveyTemplate, answers: Record<string, Record<string, unknown>>): AnswerIssue[] {
  const issues: AnswerIssue[] = [];
  const sections = new Map(t.sections.map((s) => [s.id, s]));
  for (const [sectionId, given] of Object.entries(answers)) {
    const section = sections.get(sectionId);
    if (!section) {
      issues.push({ sectionId, questionId: '*', problem: 'unknown section' });
      continue;
    }
    for (const questionId of Object.keys(given)) {
      if (!section.questions.some((q) => q.id === questionId))
        issues.push({ sectionId, questionId, problem: 'unknown question' });
    }
  }
  let answered = 0;
  let total = 0;
  for (const section of t.sections) {
    const given = answers[section.id];
    if (!given && t.validations.requiredSections.includes(section.id)) {
      issues.push({ sectionId: section.id, questionId: '*', problem: 'required section missing' });
    }
    for (const q of section.questions) {
      total++;
      const a = given?.[q.id];
      if (a === undefined) {
        if (q.required && given) issues.push({ sectionId: section.id, questionId: q.id, problem: 'required' });
        continue;
      }
      answered++;
      const problem = answerProblem(q, a);
      if (problem) issues.push({ sectionId: section.id, questionId: q.id, problem });
    }
  }
  if (total > 0 && answered / total < t.validations.completionThreshold) {
    issues.push({
      sectionId: '*',
      questionId: '*',
      problem: `completion ${answered}/${total} is below ${t.validations.completionThreshold}`,
    });
  }
  return issues;
}

function answerProblem(q: Question, a: unknown): string | undefined {
  if (q.type === 'number') {
    if (typeof a !== 'number' || !Number.isFinite(a)) return 'must be a number';
    if (a < q.validation.min || a > q.validation.max)
      return `must be between ${q.validation.min} and ${q.validation.max}`;
    return undefined;
  }
  if (!Array.isArray(a) || a.length === 0) return 'must be a non-empty array of options';
  const bad = a.filter((x) => typeof x !== 'string' || !q.options.includes(x));
  if (bad.length)
    return `not an option: ${bad.map((x) => (typeof x === 'string' ? x.slice(0, 64) : typeof x)).join(', ')}`;
  if (new Set(a).size !== a.length) return 'an option is repeated';
  return undefined;
}
