import { assign } from 'xstate';
import { t } from '../catalog/index.js';
import { endWith, isOk, keepResult, resultOf, screen, valueOf, work, type FlowContext, type FlowEvent } from './kit.js';
import type { FlowDefinition } from './registry.js';

type Args = { context: FlowContext; event: FlowEvent };

/** A survey question as the phone asks it (the gateway sends these with the open survey). */
export interface Question {
  sectionId: string;
  id: string;
  type: 'multiple_choice' | 'number';
  options?: string[];
  min?: number;
  max?: number;
}

const questions = (c: FlowContext): Question[] => (c.data.survey as { questions?: Question[] })?.questions ?? [];
const index = (c: FlowContext): number => Number(c.data.q ?? 0);
const current = (c: FlowContext): Question | undefined => questions(c)[index(c)];
const answers = (c: FlowContext) => (c.data.answers ?? {}) as Record<string, Record<string, string[] | number>>;

/** `household_size` → `Household size?` */
const wording = (id: string): string => `${id.charAt(0).toUpperCase()}${id.slice(1).replace(/_/g, ' ')}?`;

function ask(c: FlowContext): string {
  const q = current(c);
  if (!q) return '';
  const head = t(c.lang, 'survey.question', { n: index(c) + 1, total: questions(c).length, text: wording(q.id) });
  if (q.type === 'number') return `${head} ${t(c.lang, 'survey.range', { min: q.min ?? 0, max: q.max ?? 0 })}`;
  return [head, ...(q.options ?? []).map((o, i) => `${i + 1} ${o}`)].join('\n');
}

/** Records the answer to the current question and moves to the next. */
const record = (value: (q: Question, input: string) => string[] | number) =>
  assign(({ context, event }: Args) => {
    const q = current(context)!;
    const all = answers(context);
    return {
      notice: null,
      data: {
        ...context.data,
        q: index(context) + 1,
        answers: { ...all, [q.sectionId]: { ...all[q.sectionId], [q.id]: value(q, valueOf(event)) } },
      },
    };
  });

const validChoice = ({ context, event }: Args): boolean => {
  const n = Number(valueOf(event));
  return /^[1-9][0-9]?$/.test(valueOf(event)) && n <= (current(context)?.options?.length ?? 0);
};
const validNumber = ({ context, event }: Args): boolean => {
  const q = current(context);
  const v = valueOf(event);
  return !!q && /^[0-9]{1,9}$/.test(v) && Number(v) >= (q.min ?? 0) && Number(v) <= (q.max ?? Number.MAX_SAFE_INTEGER);
};

/**
 * A household answers the open survey of its project, one question per screen (choices by
 * number; numbers typed, where 0 is an answer); the answers are stored as its survey response.
 */
export const surveyFlow: FlowDefinition = {
  id: 'survey',
  audiences: ['household'],
  label: 'household.surveys',
  entry: 'survey_load',
  states: {
    survey_load: work(
      () => ({ op: 'openSurvey' }),
      [
        {
          guard: ({ event }: Args) =>
            isOk({ event } as Args) && !!(resultOf(event) as { data?: { survey?: unknown } }).data?.survey,
          target: 'survey_next',
          actions: [keepResult, assign(({ context }: Args) => ({ data: { ...context.data, q: 0, answers: {} } }))],
        },
        { guard: isOk, target: 'done', actions: endWith((c) => t(c.lang, 'survey.none')) },
        { target: 'menu', actions: assign(({ context }: Args) => ({ notice: t(context.lang, 'common.unavailable') })) },
      ],
    ),
    survey_next: {
      always: [
        { guard: ({ context }: Args) => !current(context), target: 'survey_submit' },
        { guard: ({ context }: Args) => current(context)?.type === 'number', target: 'survey_number' },
        { target: 'survey_choice' },
      ],
    },
    survey_choice: screen('menu', ask, [
      { guard: validChoice, target: 'survey_next', actions: record((q, v) => [q.options![Number(v) - 1]!]) },
    ]),
    survey_number: screen('number', ask, [
      { guard: validNumber, target: 'survey_next', actions: record((_, v) => Number(v)) },
    ]),
    survey_submit: work(
      (c) => ({ op: 'submitSurvey', surveyId: String((c.data.survey as { id: string }).id), answers: answers(c) }),
      [
        { guard: isOk, target: 'done', actions: endWith((c) => t(c.lang, 'survey.saved')) },
        {
          target: 'done',
          actions: endWith((c, e) => {
            const r = resultOf(e);
            return t(c.lang, 'survey.failed', { reason: r && !r.ok ? r.reason : '' });
          }),
        },
      ],
    ),
  },
};
