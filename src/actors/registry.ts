import { chatSessionActor } from './chat/index.js';
import { claimActor } from './claim/index.js';
import { counterActor } from './counter/index.js';
import { echoActor } from './echo/index.js';
import type { ActorDefinition } from './runtime/types.js';
import { accountActor } from './account/index.js';
import { conversionActor } from './conversion/index.js';
import { poolActor } from './pool/index.js';
import { orderActor } from './order/index.js';
import { responseActor } from './survey-response/index.js';
import { surveyActor } from './survey/index.js';
import { voucherActor } from './voucher/index.js';

/** Every actor type a worker hosts. Product actors join this list as they are built. */
export const actors: readonly ActorDefinition[] = [
  echoActor,
  counterActor,
  voucherActor,
  claimActor,
  surveyActor,
  responseActor,
  chatSessionActor,
  accountActor,
  poolActor,
  conversionActor,
  orderActor,
];
