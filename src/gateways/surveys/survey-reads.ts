import type { SurveyResponse } from '../../actors/survey/response-actor.js';
import type { SurveyState } from '../../actors/survey/survey-actor.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** Surveys and their responses straight from their snapshots (both commit before replying). */
export class SurveyReads {
  constructor(private readonly sql: Sql) {}

  async survey(id: string): Promise<SurveyState | undefined> {
    const [row] = await this.sql<
      { state: SurveyState }[]
    >`SELECT state FROM actor_snapshots WHERE type = 'survey' AND key = ${id}`;
    return row?.state;
  }

  /** A template by id (templates are built per survey; equal ids mean equal templates). */
  async template(templateId: string): Promise<SurveyState['template'] | undefined> {
    const [row] = await this.sql<{ template: SurveyState['template'] }[]>`
      SELECT state -> 'template' AS template FROM actor_snapshots
      WHERE type = 'survey' AND state ->> 'templateId' = ${templateId} LIMIT 1`;
    return row?.template;
  }

  async surveys(limit: number, offset: number): Promise<{ items: SurveyState[]; total: number }> {
    const { rows, total } = await paged(
      (lim, off) => this.sql<{ state: SurveyState; total: string }[]>`
      SELECT state, count(*) OVER () AS total FROM actor_snapshots WHERE type = 'survey'
      ORDER BY state ->> 'createdAt' DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.state), total };
  }

  async response(id: string): Promise<SurveyResponse | undefined> {
    const [row] = await this.sql<{ state: SurveyResponse }[]>`
      SELECT state FROM actor_snapshots WHERE type = 'survey-response' AND key = ${id}`;
    return row?.state;
  }

  async responses(
    surveyId: string,
    householdId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: SurveyResponse[]; total: number }> {
    const sql = this.sql;
    const { rows, total } = await paged(
      (lim, off) => sql<{ state: SurveyResponse; total: string }[]>`
      SELECT state, count(*) OVER () AS total FROM actor_snapshots
      WHERE type = 'survey-response' AND state ->> 'surveyId' = ${surveyId}
        ${householdId ? sql`AND state ->> 'householdId' = ${householdId}` : sql``}
      ORDER BY state ->> 'timestamp' DESC, key LIMIT ${lim} OFFSET ${off}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.state), total };
  }
}
