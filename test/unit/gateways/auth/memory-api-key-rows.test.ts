import { memoryApiKeyRows } from '../../../../src/gateways/auth/memory-api-key-rows.js';
import { apiKeyRowsSuite } from '../../../support/api-key-rows-suite.js';

apiKeyRowsSuite('in memory', () => memoryApiKeyRows());
