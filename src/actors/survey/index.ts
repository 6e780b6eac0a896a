import { type ActorDefinition } from '../runtime/types.js';
import { decideSurvey } from './logic.js';
import { type SurveyMessage, type SurveyState, surveyMessages } from './messages.js';

export { surveyRef, type SurveyMessage, type SurveyState } from './messages.js';

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
