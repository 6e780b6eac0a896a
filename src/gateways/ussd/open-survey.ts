import type { SurveyState } from '../../actors/survey/survey-actor.js';
import type { Question } from '../../actors/ussd-session/flows/survey.js';
import { responseIdFor } from '../../actors/survey/response-id.js';
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
    SELECT s.state FROM actor_snapshots s
    WHERE s.type = 'survey' AND s.state ->> 'status' = 'open'
      AND s.state ->> 'projectId' IN (
        SELECT c.project_id FROM actor_snapshots v JOIN certificates c ON c.id = v.voucher_certificate
        WHERE v.type = 'voucher' AND v.voucher_recipient = ${householdDid})
    ORDER BY s.state ->> 'createdAt' DESC LIMIT 10`;
  for (const { state } of rows) {
    const [answered] = await sql`
      SELECT 1 AS x FROM actor_snapshots WHERE type = 'survey-response' AND key = ${responseIdFor(state.id, householdDid)}`;
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
