import { createHash } from 'node:crypto';

/** The response actor's key: one response per household and survey, whichever channel sends it. */
export function responseIdFor(surveyId: string, householdId: string): string {
  return `rsp_${createHash('sha256').update(`${surveyId}\u0000${householdId}`).digest('hex').slice(0, 24)}`;
}
