import { z } from 'zod';
import type { SurveyTemplate, SurveyType } from './template.js';
import { actorRef } from '../runtime/actor-ref.js';

/** A survey campaign: created once (a retry with the same request id gets the same answer). */
export const surveyMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('create'),
      requestId: z.string().min(1).max(128),
      survey: z.record(z.string(), z.unknown()),
    })
    .strict(),
  z.object({ kind: z.literal('get') }).strict(),
]);

export type SurveyMessage = z.infer<typeof surveyMessages>;

export interface SurveyState {
  id: string;
  type: SurveyType;
  projectId: string;
  status: 'open';
  templateId: string;
  template: SurveyTemplate;
  sampling: Record<string, unknown>;
  sampleSize: { required: number; requested: number; sufficient: boolean; z: number; withoutCorrection: number };
  createdAt: string;
  requestId: string;
}

/** What callers address: each kind of survey message, and what it answers. */
export const surveyRef = actorRef<SurveyMessage, { create: SurveyState; get: SurveyState }>('survey');
