import type { SurveyState } from '../../actors/survey/index.js';
import type { Question } from '../../actors/ussd/flows/survey.js';
import { responseIdFor } from '../../actors/survey-response/response-id.js';
import type { Sql } from '../../store/db.js';

export type PhoneQuestion = Question;

/**
 * The newest open survey of a project the household holds a voucher under (through the
 * voucher's certificate), that the household has not answered yet.
 */
export async function openSurveyFor(
  sql: Sql,
  householdDid: string,
): Promise<{ id: string; questions: PhoneQuestion[] } | undefined> {
  const rows = await sql<{ state: SurveyState }[]>`
    SELECT s.doc AS state FROM survey_views s
    WHERE s.status = 'open'
      AND s.project_id IN (
        SELECT c.project_id FROM voucher_views v JOIN certificates c ON c.id = v.certificate_id
        WHERE v.recipient_did = ${householdDid})
    ORDER BY s.created_at DESC LIMIT 10`;
  for (const { state } of rows) {
    const [answered] = await sql`
      SELECT 1 AS x FROM survey_response_views WHERE key = ${responseIdFor(state.id, householdDid)}`;
    if (answered) continue;
    const questions = state.template.sections.flatMap((section) =>
      section.questions.map((q): PhoneQuestion =>
        q.type === 'multiple_choice'
          ? { sectionId: section.id, id: q.id, type: q.type, options: q.options }
          : { sectionId: section.id, id: q.id, type: q.type, min: q.validation.min, max: q.validation.max },
      ),
    );
    return { id: state.id, questions };
  }
  return undefined;
}
