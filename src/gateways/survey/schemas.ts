import { z } from 'zod';
import type { SurveyState } from '../../actors/survey/index.js';
import { surveyTemplateSchema, surveyTypes } from '../../actors/survey/template.js';
import { did } from '../http/fields.js';

export const surveyCreate = z
  .object({
    type: z.enum(surveyTypes),
    projectId: did,
    template: z
      .object({
        eligibilityCriteria: z.boolean(),
        socioEconomicData: z.boolean(),
        cookingPatterns: z.boolean(),
        stovePerceptions: z.boolean(),
      })
      .strict(),
    sampling: z
      .object({
        method: z.enum(['stratified', 'random', 'systematic', 'cluster']),
        size: z.number().int().min(1).max(10_000_000),
        confidence: z.number().min(0.5).max(0.9999),
        population: z.number().int().min(1).max(1_000_000_000).optional(),
        marginOfError: z.number().min(0.001).max(0.5).optional(),
        proportion: z.number().min(0.01).max(0.99).optional(),
      })
      .strict(),
  })
  .strict();

export const responseCreate = z
  .object({
    householdId: did,
    responses: z.record(z.string().min(1).max(64), z.record(z.string().min(1).max(64), z.unknown())),
  })
  .strict();

/** A survey as the API answers it: the actor's state without the request id (routes.ts, surveyView). */
export const surveyViewSchema = z.strictObject({
  id: z.string(),
  type: z.enum(surveyTypes),
  projectId: z.string(),
  status: z.literal('open'),
  templateId: z.string(),
  template: surveyTemplateSchema,
  /** As it was asked for at creation. */
  sampling: surveyCreate.shape.sampling,
  /** Cochran's sample size (actors/survey/sample-size.ts) against the size asked for. */
  sampleSize: z.strictObject({
    required: z.number().int(),
    requested: z.number().int(),
    sufficient: z.boolean(),
    z: z.number(),
    withoutCorrection: z.number().int(),
  }),
  createdAt: z.iso.datetime(),
}) satisfies z.ZodType<Omit<SurveyState, 'requestId'>>;
