import { createHash } from 'node:crypto';
import { responseIdFor } from '../../actors/survey-response/response-id.js';
import type { Asker } from '../../actors/runtime/asker.js';
import type { SurveyResponse } from '../../actors/survey-response/index.js';
import { cochranSampleSize } from '../../actors/survey/sample-size.js';
import type { SurveyState } from '../../actors/survey/index.js';
import { buildTemplate, checkAnswers } from '../../actors/survey/template.js';
import { AppError } from '../../errors/index.js';
import type { Household } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { SurveyReads } from './survey-reads.js';
import type { Principal } from '../auth/principal.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { guarded, type Guards } from '../auth/guard.js';
import { pageOf, pageQuery } from '../http/pagination.js';
import { requestIdOf } from '../http/operation-id.js';
import { responseCreate, surveyCreate, surveyViewSchema } from './schemas.js';
import { surveyResponseRef } from '../../actors/survey-response/index.js';
import { surveyResponseSchema } from '../../actors/survey-response/messages.js';
import { surveyTemplateSchema } from '../../actors/survey/template.js';
import { askErrors } from '../http/ask-errors.js';
import { surveyRef } from '../../actors/survey/index.js';

export interface SurveyDeps {
  client: Asker;
  reads: SurveyReads;
  households: Registry<Household>;
}

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** What clients see of a survey (the request id stays inside). */
function surveyView(s: SurveyState): Omit<SurveyState, 'requestId'> {
  const { requestId: _r, ...shown } = s;
  return shown;
}

function visible(who: Principal, r: SurveyResponse | undefined): r is SurveyResponse {
  return r !== undefined && (who.role !== 'household' || r.householdId === who.did);
}

export function surveyRoutes(g: Guards, d: SurveyDeps): RouteSpec[] {
  const readers = ['admin', 'implementer', 'regulator'] as const;
  const survey = async (id: string): Promise<SurveyState> => {
    const s = await d.reads.survey(id);
    if (!s) throw new AppError('SURVEY_NOT_FOUND', `no survey ${id}`);
    return s;
  };
  return [
    {
      method: 'POST',
      path: '/v1/surveys',
      doc: {
        operationId: 'createSurvey',
        summary: 'Create a survey campaign with its template and sample size',
        tag: 'surveys',
        body: surveyCreate,
        responses: { 201: 'The survey' },
        responseBody: surveyViewSchema,
        errors: ['SURVEY_CONFIG_INVALID', ...askErrors],
      },
      handler: guarded(g, ['implementer', 'admin'], async (ctx, who) => {
        const body = await jsonBody(ctx, surveyCreate);
        const template = buildTemplate(body.type, body.template);
        if (template.sections.length === 0) {
          throw new AppError('SURVEY_CONFIG_INVALID', 'choose at least one template section (a flag set to true)');
        }
        const { size, population } = body.sampling;
        if (population !== undefined && size > population) {
          throw new AppError(
            'SURVEY_CONFIG_INVALID',
            `sampling.size (${size}) is larger than sampling.population (${population}): no sample can be drawn`,
          );
        }
        const sizing = cochranSampleSize(body.sampling);
        const requestId = requestIdOf(ctx, who);
        // Derived from the request id: a retry with the same Idempotency-Key reaches the same survey.
        const id = `srv_${shortHash(requestId)}`;
        const created = await d.client.ask(surveyRef, id, {
          kind: 'create',
          requestId,
          survey: {
            type: body.type,
            projectId: body.projectId,
            templateId: template.templateId,
            template,
            sampling: body.sampling,
            sampleSize: { ...sizing, requested: body.sampling.size, sufficient: body.sampling.size >= sizing.required },
          },
        });
        return json(201, surveyView(created));
      }),
    },
    {
      method: 'GET',
      path: '/v1/surveys',
      doc: {
        operationId: 'listSurveys',
        summary: 'List surveys',
        tag: 'surveys',
        query: pageQuery,
        responses: { 200: 'A page of surveys, newest first' },
        responseBody: pageOf(surveyViewSchema),
        errors: ['VALIDATION_FAILED'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx) => {
        const { limit, offset } = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const { items, total } = await d.reads.surveys(limit, offset);
        return json(200, { items: items.map(surveyView), total, limit, offset });
      }),
    },
    {
      method: 'GET',
      path: '/v1/surveys/:id',
      doc: {
        operationId: 'getSurvey',
        summary: 'One survey',
        tag: 'surveys',
        responses: { 200: 'The survey' },
        responseBody: surveyViewSchema,
        errors: ['SURVEY_NOT_FOUND'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx) =>
        json(200, surveyView(await survey(ctx.params.id ?? ''))),
      ),
    },
    {
      method: 'GET',
      path: '/v1/surveys/:id/template',
      doc: {
        operationId: 'getSurveyTemplate',
        summary: 'The versioned template of a survey',
        tag: 'surveys',
        responses: { 200: 'The template' },
        responseBody: surveyTemplateSchema,
        errors: ['SURVEY_NOT_FOUND'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx) =>
        json(200, (await survey(ctx.params.id ?? '')).template),
      ),
    },
    {
      method: 'GET',
      path: '/v1/templates/:templateId',
      doc: {
        operationId: 'getTemplate',
        summary: 'A survey template by its versioned id',
        tag: 'surveys',
        responses: { 200: 'The template' },
        responseBody: surveyTemplateSchema,
        errors: ['NOT_FOUND'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx) => {
        const t = await d.reads.template(ctx.params.templateId ?? '');
        if (!t) throw new AppError('NOT_FOUND', `no template ${ctx.params.templateId}`);
        return json(200, t);
      }),
    },
    {
      method: 'POST',
      path: '/v1/surveys/:id/responses',
      doc: {
        operationId: 'submitSurveyResponse',
        summary: "Submit a household's answers",
        tag: 'surveys',
        body: responseCreate,
        responses: { 201: 'The survey response' },
        responseBody: surveyResponseSchema,
        errors: [
          'SURVEY_NOT_FOUND',
          'HOUSEHOLD_NOT_REGISTERED',
          'SURVEY_RESPONSE_INVALID',
          'SURVEY_RESPONSE_CONFLICT',
          ...askErrors,
        ],
      },
      handler: guarded(g, ['implementer', 'admin', 'household'], async (ctx, who) => {
        const s = await survey(ctx.params.id ?? '');
        const body = await jsonBody(ctx, responseCreate);
        if (who.role === 'household' && body.householdId !== who.did) {
          throw new AppError('FORBIDDEN', 'a household key answers for its own DID only');
        }
        if (!(await d.households.get(body.householdId))) {
          throw new AppError('HOUSEHOLD_NOT_REGISTERED', `${body.householdId} is not a registered household`);
        }
        const issues = checkAnswers(s.template, body.responses);
        if (issues.length) {
          throw new AppError('SURVEY_RESPONSE_INVALID', `the answers fail the template ${s.templateId}`, issues);
        }
        const responseId = responseIdFor(s.id, body.householdId);
        const r = await d.client.ask(surveyResponseRef, responseId, {
          kind: 'submit',
          surveyId: s.id,
          householdId: body.householdId,
          responses: body.responses,
        });
        return json(201, r);
      }),
    },
    {
      method: 'GET',
      path: '/v1/surveys/:id/responses',
      doc: {
        operationId: 'listSurveyResponses',
        summary: 'Responses of a survey (a household key: its own)',
        tag: 'surveys',
        query: pageQuery,
        responses: { 200: 'A page of responses, newest first' },
        responseBody: pageOf(surveyResponseSchema),
        errors: ['VALIDATION_FAILED', 'SURVEY_NOT_FOUND'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx, who) => {
        const { limit, offset } = parseWith(pageQuery, queryObject(ctx.query), 'query');
        const s = await survey(ctx.params.id ?? '');
        const household = who.role === 'household' ? who.did : undefined;
        const { items, total } = await d.reads.responses(s.id, household, limit, offset);
        return json(200, { items, total, limit, offset });
      }),
    },
    {
      method: 'GET',
      path: '/v1/surveys/:id/responses/:responseId',
      doc: {
        operationId: 'getSurveyResponse',
        summary: 'One survey response',
        tag: 'surveys',
        responses: { 200: 'The survey response' },
        responseBody: surveyResponseSchema,
        errors: ['RESPONSE_NOT_FOUND'],
      },
      handler: guarded(g, [...readers, 'household'], async (ctx, who) => {
        const r = await d.reads.response(ctx.params.responseId ?? '');
        if (!visible(who, r) || r.surveyId !== ctx.params.id) {
          throw new AppError('RESPONSE_NOT_FOUND', `no response ${ctx.params.responseId}`);
        }
        return json(200, r);
      }),
    },
    {
      method: 'POST',
      path: '/v1/surveys/:id/responses/:responseId/verification',
      doc: {
        operationId: 'verifySurveyResponse',
        summary: 'Verify a response (regulator with a DID)',
        tag: 'surveys',
        responses: { 200: 'The response with its verification' },
        responseBody: surveyResponseSchema,
        errors: ['RESPONSE_NOT_FOUND', ...askErrors],
      },
      handler: guarded(g, ['regulator'], async (ctx, who) => {
        if (!who.did) throw new AppError('FORBIDDEN', 'verifying needs a regulator key issued with the regulator DID');
        const r = await d.reads.response(ctx.params.responseId ?? '');
        if (!r || r.surveyId !== ctx.params.id)
          throw new AppError('RESPONSE_NOT_FOUND', `no response ${ctx.params.responseId}`);
        const verified = await d.client.ask(surveyResponseRef, r.responseId, {
          kind: 'verify',
          verifier: who.did,
        });
        return json(200, verified);
      }),
    },
  ];
}
