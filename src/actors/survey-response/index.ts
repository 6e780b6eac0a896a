import { type ActorDefinition } from '../runtime/types.js';
import { decideResponse } from './logic.js';
import { type ResponseMessage, type SurveyResponse, responseMessages } from './messages.js';

export { surveyResponseRef, type ResponseMessage, type SurveyResponse } from './messages.js';

export const responseActor: ActorDefinition<SurveyResponse, ResponseMessage> = {
  type: 'survey-response',
  messages: responseMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideResponse,
  view: {
    table: 'survey_response_views',
    columns: ['survey_id', 'household_id', 'recorded_at', 'doc'],
    row: (r) => ({ survey_id: r.surveyId, household_id: r.householdId, recorded_at: r.timestamp, doc: r }),
  },
};
