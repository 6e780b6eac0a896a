import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '../../common/canonical-json.js';
import { ledgerEntry } from '../ledger-effect.js';
import { z } from 'zod';
import { reject, type ActorDefinition, type Decision } from '../runtime/types.js';
import { actorRef } from '../runtime/actor-ref.js';

/**
 * One actor per (survey, household): a household answers a survey once. The gateway validates
 * the answers against the template; the actor keeps them, refuses a conflicting second answer,
 * and records a regulator's verification.
 */
const responseMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('submit'),
      surveyId: z.string(),
      householdId: z.string(),
      responses: z.record(z.string(), z.record(z.string(), z.unknown())),
    })
    .strict(),
  z.object({ kind: z.literal('verify'), verifier: z.string() }).strict(),
]);

export type ResponseMessage = z.infer<typeof responseMessages>;

export interface SurveyResponse {
  responseId: string;
  surveyId: string;
  householdId: string;
  timestamp: string;
  responses: Record<string, Record<string, unknown>>;
  verification?: { status: 'verified'; verifier: string; timestamp: string };
}

/** A survey response as the API answers it (the actor's state, whole). */
export const surveyResponseSchema = z.strictObject({
  responseId: z.string(),
  surveyId: z.string(),
  householdId: z.string(),
  timestamp: z.iso.datetime(),
  /** Section id → question id → answer. */
  responses: z.record(z.string(), z.record(z.string(), z.unknown())),
  verification: z
    .strictObject({ status: z.literal('verified'), verifier: z.string(), timestamp: z.iso.datetime() })
    .optional(),
}) satisfies z.ZodType<SurveyResponse>;

function decideResponse(
  state: SurveyResponse | undefined,
  msg: ResponseMessage,
  ctx: { key: string; now: Date },
): Decision<SurveyResponse> {
  if (msg.kind === 'verify') {
    if (!state) return { state, rejection: reject('RESPONSE_NOT_FOUND', `no response ${ctx.key}`) };
    if (state.verification) return { state, reply: state };
    const next: SurveyResponse = {
      ...state,
      verification: { status: 'verified', verifier: msg.verifier, timestamp: ctx.now.toISOString() },
    };
    return {
      state: next,
      reply: next,
      effects: [
        ledgerEntry('survey.response.verified', {
          responseId: state.responseId,
          surveyId: state.surveyId,
          // What the regulator verified: the answers as they stood.
          responsesDigest: responsesDigest(state.responses),
          verifier: msg.verifier,
          at: next.verification?.timestamp,
        }),
      ],
    };
  }
  if (state) {
    // The same answers again are a retry; different ones conflict with what is recorded.
    return isDeepStrictEqual(state.responses, msg.responses)
      ? { state, reply: state }
      : {
          state,
          rejection: reject(
            'SURVEY_RESPONSE_CONFLICT',
            `household ${msg.householdId} already answered survey ${msg.surveyId} differently`,
            { responseId: state.responseId },
          ),
        };
  }
  const next: SurveyResponse = {
    responseId: ctx.key,
    surveyId: msg.surveyId,
    householdId: msg.householdId,
    timestamp: ctx.now.toISOString(),
    responses: msg.responses,
  };
  return {
    state: next,
    reply: next,
    effects: [
      ledgerEntry('survey.response.submitted', {
        responseId: next.responseId,
        surveyId: next.surveyId,
        householdId: next.householdId,
        responsesDigest: responsesDigest(next.responses),
        at: next.timestamp,
      }),
    ],
  };
}

/**
 * The SHA-256 of the answers' canonical JSON: the ledger holds no answers (they are the
 * household's), but a change to a stored response no longer matches what was recorded.
 */
export function responsesDigest(responses: SurveyResponse['responses']): string {
  return createHash('sha256').update(canonicalJson(responses)).digest('hex');
}

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

/** What callers address: each kind of survey-response message, and what it answers. */
export const surveyResponseRef = actorRef<ResponseMessage, { submit: SurveyResponse; verify: SurveyResponse }>(
  'survey-response',
);
