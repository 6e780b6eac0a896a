import type { SurveyResponse } from '../../actors/survey-response/index.js';
import type { SurveyState } from '../../actors/survey/index.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** Surveys and their responses from their read models (both commit before replying). */
export class SurveyReads {
  constructor(private readonly sql: Sql) {}

  async survey(id: string): Promise<SurveyState | undefined> {
    const [row] = await this.sql<{ doc: SurveyState }[]>`SELECT doc FROM survey_views WHERE key = ${id}`;
    return row?.doc;
  }

  /** A template by id (templates are built per survey; equal ids mean equal templates). */
  async template(templateId: string): Promise<SurveyState['template'] | undefined> {
    const [row] = await this.sql<{ template: SurveyState['template'] }[]>`
      SELECT doc -> 'template' AS template FROM survey_views WHERE template_id = ${templateId} LIMIT 1`;
    return row?.template;
  }

  async surveys(limit: number, offset: number): Promise<{ items: SurveyState[]; total: number }> {
    const { rows, total } = await paged(
      (lim, off) => this.sql<{ doc: SurveyState; total: string }[]>`
      SELECT doc, count(*) OVER () AS total FROM survey_views
      ORDER BY created_at DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }

  async response(id: string): Promise<SurveyResponse | undefined> {
    const [row] = await this.sql<{ doc: SurveyResponse }[]>`SELECT doc FROM survey_response_views WHERE key = ${id}`;
    return row?.doc;
  }

  async responses(
    surveyId: string,
    householdId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: SurveyResponse[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ doc: SurveyResponse; total: string }[]>`
      SELECT doc, count(*) OVER () AS total FROM survey_response_views
      WHERE survey_id = ${surveyId}
        ${householdId ? sql`AND household_id = ${householdId}` : sql``}
      ORDER BY recorded_at DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }
}
