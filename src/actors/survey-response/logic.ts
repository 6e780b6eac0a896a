import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '../../common/canonical-json.js';
import { ledgerEntry } from '../ledger-effect.js';
import { reject, type Decision } from '../runtime/types.js';
import { type ResponseMessage, type SurveyResponse } from './messages.js';

export function decideResponse(
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
