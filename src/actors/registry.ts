import { chatSessionActor } from './chat-session/logic.js';
import { claimActor } from './claim/claim.js';
import { counterActor } from './diagnostics/counter.js';
import { echoActor } from './diagnostics/echo.js';
import type { ActorDefinition } from './runtime/types.js';
import { accountActor } from './account/index.js';
import { conversionActor } from './conversion/index.js';
import { poolActor } from './pool/index.js';
import { orderActor } from './order/index.js';
import { responseActor } from './survey/response-actor.js';
import { surveyActor } from './survey/survey-actor.js';
import { voucherActor } from './voucher/logic.js';

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
