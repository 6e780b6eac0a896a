import type { SurveyResponse } from '../../actors/survey-response/index.js';
import type { SurveyState } from '../../actors/survey/index.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';
import type { MemorySnapshotStore } from '../../store/memory-snapshot-store.js';
import { newestViewRows } from '../../store/memory-view-rows.js';

type Page<T> = { items: T[]; total: number };

/**
 * Surveys and their responses from their read models (both commit before replying, so a client
 * reads its own writes): in PostgreSQL, or in the memory store of the product tier.
 */
export interface SurveyReads {
  survey(id: string): Promise<SurveyState | undefined>;
  /** A template by id (templates are built per survey; equal ids mean equal templates). */
  template(templateId: string): Promise<SurveyState['template'] | undefined>;
  /** Newest first. */
  surveys(limit: number, offset: number): Promise<Page<SurveyState>>;
  response(id: string): Promise<SurveyResponse | undefined>;
  /** A survey's responses (optionally one household's), the latest recorded first. */
  responses(
    surveyId: string,
    householdId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<Page<SurveyResponse>>;
}

export class PgSurveyReads implements SurveyReads {
  constructor(private readonly sql: Sql) {}

  async survey(id: string): Promise<SurveyState | undefined> {
    const [row] = await this.sql<{ doc: SurveyState }[]>`SELECT doc FROM survey_views WHERE key = ${id}`;
    return row?.doc;
  }

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

/** Surveys and responses from the survey_views and survey_response_views rows of the memory store. */
export class MemorySurveyReads implements SurveyReads {
  constructor(private readonly store: MemorySnapshotStore) {}

  private doc<T>(table: string, key: string): T | undefined {
    const row = this.store.views.get(table)?.get(key);
    return row ? structuredClone(row.doc as T) : undefined;
  }

  survey(id: string): Promise<SurveyState | undefined> {
    return Promise.resolve(this.doc<SurveyState>('survey_views', id));
  }

  template(templateId: string): Promise<SurveyState['template'] | undefined> {
    const row = [...(this.store.views.get('survey_views')?.values() ?? [])].find((r) => r.template_id === templateId);
    return Promise.resolve(row ? structuredClone((row.doc as SurveyState).template) : undefined);
  }

  surveys(limit: number, offset: number): Promise<Page<SurveyState>> {
    return Promise.resolve(
      pageOfDocs(
        newestViewRows(this.store, 'survey_views', () => true),
        limit,
        offset,
      ),
    );
  }

  response(id: string): Promise<SurveyResponse | undefined> {
    return Promise.resolve(this.doc<SurveyResponse>('survey_response_views', id));
  }

  responses(
    surveyId: string,
    householdId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<Page<SurveyResponse>> {
    const rows = newestViewRows(
      this.store,
      'survey_response_views',
      (r) => r.survey_id === surveyId && (!householdId || r.household_id === householdId),
      'recorded_at',
    );
    return Promise.resolve(pageOfDocs(rows, limit, offset));
  }
}

function pageOfDocs<T>(rows: ReadonlyArray<[string, Record<string, unknown>]>, limit: number, offset: number): Page<T> {
  return { items: rows.slice(offset, offset + limit).map(([, r]) => structuredClone(r.doc as T)), total: rows.length };
}
