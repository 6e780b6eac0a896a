/**
 * The survey product's service, as other channels use it: the survey reads and the open survey
 * a household may answer (the USSD menu and the oracle's tools). Another product imports surveys
 * through this file only (test/unit/import-rules.test.ts).
 */
export { PgSurveyReads, type SurveyReads } from './survey-reads.js';
export { openSurveyFor } from './open-survey.js';
