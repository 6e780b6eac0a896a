import { z } from 'zod';
import { actorRef } from '../runtime/actor-ref.js';

/**
 * One actor per (survey, household): a household answers a survey once. The gateway validates
 * the answers against the template; the actor keeps them, refuses a conflicting second answer,
 * and records a regulator's verification.
 */
export const responseMessages = z.discriminatedUnion('kind', [
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

/** What callers address: each kind of survey-response message, and what it answers. */
export const surveyResponseRef = actorRef<ResponseMessage, { submit: SurveyResponse; verify: SurveyResponse }>(
  'survey-response',
);
