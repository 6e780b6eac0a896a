import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { newDidKey } from '../../../support/voucher-fixtures.js';
import { ledgerRecords } from '../../../support/ledger-records.js';
import { responsesDigest } from '../../../../src/actors/survey-response/logic.js';

describe('surveys (spec 000)', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let implementer = '';
  let regulator = '';
  let householdKey = '';
  const household = newDidKey();
  const regulatorDid = newDidKey();
  let surveyId = '';

  const create = (extra: Record<string, unknown> = {}) => ({
    type: 'BaselineSurvey',
    projectId: 'did:ixo:entity:project1',
    template: { eligibilityCriteria: true, socioEconomicData: false, cookingPatterns: true, stovePerceptions: false },
    sampling: { method: 'stratified', size: 400, confidence: 0.95 },
    ...extra,
  });
  const answers = {
    eligibility: { household_size: 4, primary_fuel: ['firewood'], owns_clean_stove: ['no'] },
    cooking: { meals_per_day: 2, cooking_location: ['outdoor'] },
  };

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2' }), env.log);
    a = api(hearth.port);
    implementer = (await a.call('POST', '/v1/api-keys', { body: { role: 'implementer' } })).body.key;
    regulator = (await a.call('POST', '/v1/api-keys', { body: { role: 'regulator', did: regulatorDid } })).body.key;
    householdKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'household', did: household } })).body.key;
    await a.call('POST', '/v1/households', { key: implementer, body: { did: household } });
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('creates a survey with a versioned template and the computed sample size (201)', async () => {
    const r = await a.call('POST', '/v1/surveys', {
      key: implementer,
      body: create({ sampling: { method: 'stratified', size: 250, confidence: 0.95, population: 1000 } }),
    });
    expect(r.status).toBe(201);
    surveyId = r.body.id;
    expect(r.body).toMatchObject({
      type: 'BaselineSurvey',
      status: 'open',
      templateId: expect.stringMatching(/^tpl-baseline-[0-9a-f]{8}-v1$/),
      sampleSize: { required: 278, requested: 250, sufficient: false },
    });
    expect(r.body.template.sections.map((s: { id: string }) => s.id)).toEqual(['eligibility', 'cooking']);
    const t = await a.call('GET', `/v1/surveys/${surveyId}/template`, { key: householdKey });
    expect(t.body.templateId).toBe(r.body.templateId);
    const byId = await a.call('GET', `/v1/templates/${r.body.templateId}`, { key: implementer });
    expect(byId.body).toEqual(t.body);
    expect((await a.call('GET', '/v1/templates/tpl-none-v1', { key: implementer })).status).toBe(404);
  });

  it.each([
    [
      'no section chosen',
      create({
        template: {
          eligibilityCriteria: false,
          socioEconomicData: false,
          cookingPatterns: false,
          stovePerceptions: false,
        },
      }),
      'SURVEY_CONFIG_INVALID',
    ],
    [
      'a sample larger than its population',
      create({ sampling: { method: 'random', size: 5_000, confidence: 0.95, population: 100 } }),
      'SURVEY_CONFIG_INVALID',
    ],
    ['an unknown survey type', create({ type: 'ExitSurvey' }), 'VALIDATION_FAILED'],
    [
      'a confidence of 95',
      create({ sampling: { method: 'stratified', size: 10, confidence: 95 } }),
      'VALIDATION_FAILED',
    ],
    [
      'a sample size of 0',
      create({ sampling: { method: 'stratified', size: 0, confidence: 0.95 } }),
      'VALIDATION_FAILED',
    ],
  ])('refuses %s (400)', async (_n, body, code) => {
    const r = await a.call('POST', '/v1/surveys', { key: implementer, body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(code);
  });

  it('creates follow-up and monitoring surveys with their own sections', async () => {
    const f = await a.call('POST', '/v1/surveys', { key: implementer, body: create({ type: 'FollowUpSurvey' }) });
    expect(f.body.template.sections.map((s: { id: string }) => s.id)).toContain('installation');
    const m = await a.call('POST', '/v1/surveys', { key: implementer, body: create({ type: 'MonitoringSurvey' }) });
    expect(m.body.template.sections.map((s: { id: string }) => s.id)).toContain('usage');
  });

  it('accepts a valid response (201) and answers 400 with the failing question ids', async () => {
    const bad = await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
      key: householdKey,
      body: {
        householdId: household,
        responses: { ...answers, cooking: { meals_per_day: 50, cooking_location: ['roof'] } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('SURVEY_RESPONSE_INVALID');
    expect(bad.body.error.details.map((d: { questionId: string }) => d.questionId)).toEqual(
      expect.arrayContaining(['meals_per_day', 'cooking_location']),
    );

    const ok = await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
      key: householdKey,
      body: { householdId: household, responses: answers },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ surveyId, householdId: household, responses: answers });
    expect(new Date(ok.body.timestamp).toISOString()).toBe(ok.body.timestamp);
  });

  it('takes the same response again as a retry, and refuses a different one (409)', async () => {
    const again = await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
      key: implementer,
      body: { householdId: household, responses: answers },
    });
    expect(again.status).toBe(201);
    const other = await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
      key: implementer,
      body: {
        householdId: household,
        responses: { ...answers, cooking: { meals_per_day: 3, cooking_location: ['indoor'] } },
      },
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('SURVEY_RESPONSE_CONFLICT');
  });

  it('refuses a household answering for another, and an unregistered household', async () => {
    const other = newDidKey();
    expect(
      (
        await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
          key: householdKey,
          body: { householdId: other, responses: answers },
        })
      ).status,
    ).toBe(403);
    const r = await a.call('POST', `/v1/surveys/${surveyId}/responses`, {
      key: implementer,
      body: { householdId: other, responses: answers },
    });
    expect(r.body.error.code).toBe('HOUSEHOLD_NOT_REGISTERED');
  });

  it('lets a regulator verify a response, as the spec shows', async () => {
    const list = await a.call('GET', `/v1/surveys/${surveyId}/responses`, { key: regulator });
    expect(list.body.total).toBe(1);
    const responseId = list.body.items[0].responseId as string;
    const v = await a.call('POST', `/v1/surveys/${surveyId}/responses/${responseId}/verification`, { key: regulator });
    expect(v.status).toBe(200);
    expect(v.body.verification).toEqual({ status: 'verified', verifier: regulatorDid, timestamp: expect.any(String) });
    expect(
      (await a.call('POST', `/v1/surveys/${surveyId}/responses/${responseId}/verification`, { key: implementer }))
        .status,
    ).toBe(403);
    const verified = await ledgerRecords(env.sql, { type: 'survey.response.verified' });
    expect(verified).toHaveLength(1);
    // The answers as verified, by digest: the one recorded at submission, and the stored answers'.
    const submitted = (await ledgerRecords(env.sql, { type: 'survey.response.submitted' })).find(
      (r) => r.payload.responseId === responseId,
    );
    expect(verified[0]!.payload.responsesDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(verified[0]!.payload.responsesDigest).toBe(submitted!.payload.responsesDigest);
    expect(verified[0]!.payload.responsesDigest).toBe(responsesDigest(list.body.items[0].responses));
  });

  it('answers 404 for unknown surveys and responses', async () => {
    expect((await a.call('GET', '/v1/surveys/srv_nope', { key: implementer })).body.error.code).toBe(
      'SURVEY_NOT_FOUND',
    );
    expect(
      (await a.call('GET', `/v1/surveys/${surveyId}/responses/rsp_nope`, { key: implementer })).body.error.code,
    ).toBe('RESPONSE_NOT_FOUND');
    expect(
      (
        await a.call('POST', '/v1/surveys/srv_nope/responses', {
          key: implementer,
          body: { householdId: household, responses: answers },
        })
      ).status,
    ).toBe(404);
  });
});
