import { ledgerEntry } from '../ledger-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { type SurveyMessage, type SurveyState } from './messages.js';

export function decideSurvey(
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
