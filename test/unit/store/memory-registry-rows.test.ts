import { memoryRegistryRows } from '../../../src/store/registries/memory-registry-rows.js';
import { registryRowsSuite } from '../../support/registry-rows-suite.js';

registryRowsSuite('in memory', (spec) => memoryRegistryRows(spec));
