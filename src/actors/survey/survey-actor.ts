import { ledgerEntry } from '../ledger-effect.js';
import { z } from 'zod';
import { reject, type ActorDefinition, type Decision } from '../runtime/types.js';
import type { SurveyTemplate, SurveyType } from './template.js';
import { actorRef } from '../runtime/actor-ref.js';

/** A survey campaign: created once (a retry with the same request id gets the same answer). */
const surveyMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('create'),
      requestId: z.string().min(1).max(128),
      survey: z.record(z.string(), z.unknown()),
    })
    .strict(),
  z.object({ kind: z.literal('get') }).strict(),
]);

export type SurveyMessage = z.infer<typeof surveyMessages>;

export interface SurveyState {
  id: string;
  type: SurveyType;
  projectId: string;
  status: 'open';
  templateId: string;
  template: SurveyTemplate;
  sampling: Record<string, unknown>;
  sampleSize: { required: number; requested: number; sufficient: boolean; z: number; withoutCorrection: number };
  createdAt: string;
  requestId: string;
}

function decideSurvey(
  state: SurveyState | undefined,
  msg: SurveyMessage,
  ctx: { key: string; now: Date },
): Decision<SurveyState> {
  if (msg.kind === 'get') {
    return state ? { state, reply: state } : { state, rejection: reject('SURVEY_NOT_FOUND', `no survey ${ctx.key}`) };
  }
  if (state) {
    return state.requestId === msg.requestId
      ? { state, reply: state }
      : { state, rejection: reject('ALREADY_EXISTS', `survey ${ctx.key} already exists`) };
  }
  const survey = { ...(msg.survey as Omit<SurveyState, 'id' | 'createdAt' | 'requestId' | 'status'>) };
  const next: SurveyState = {
    ...survey,
    id: ctx.key,
    status: 'open',
    createdAt: ctx.now.toISOString(),
    requestId: msg.requestId,
  };
  return {
    state: next,
    reply: next,
    effects: [
      ledgerEntry('survey.created', {
        id: next.id,
        projectId: next.projectId,
        surveyType: next.type,
        templateId: next.templateId,
        at: next.createdAt,
      }),
    ],
  };
}

export const surveyActor: ActorDefinition<SurveyState, SurveyMessage> = {
  type: 'survey',
  messages: surveyMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideSurvey,
  view: {
    table: 'survey_views',
    columns: ['template_id', 'project_id', 'status', 'created_at', 'doc'],
    row: (s) => ({
      template_id: s.templateId,
      project_id: s.projectId,
      status: s.status,
      created_at: s.createdAt,
      doc: s,
    }),
  },
};

/** What callers address: each kind of survey message, and what it answers. */
export const surveyRef = actorRef<SurveyMessage, { create: SurveyState; get: SurveyState }>('survey');
