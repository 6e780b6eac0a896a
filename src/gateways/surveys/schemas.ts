import { z } from 'zod';
import { surveyTypes } from '../../actors/survey/template.js';
import { did } from '../registries/schemas.js';

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
