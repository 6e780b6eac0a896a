import { changePinFlow } from './change-pin.js';
import { pinSetupFlow } from './pin-setup.js';
import type { MacPin } from '../pin-mac.js';
import type { FlowDefinition } from './registry.js';
import { supplierRedeemFlow } from './supplier-redeem.js';
import { supplierWalletFlow } from './supplier-wallet.js';
import { surveyFlow } from './survey.js';
import { unregisteredFlow } from './unregistered.js';
import { vouchersFlow } from './vouchers.js';

/**
 * Every flow hearth serves, in main-menu order. A deployer's flow goes in this list (see the
 * docs/ussd.md's example); the gateway and the session logic do not change.
 */
export function installedFlows(mac: MacPin): FlowDefinition[] {
  return [
    pinSetupFlow(mac),
    vouchersFlow(mac),
    surveyFlow,
    supplierRedeemFlow(mac),
    supplierWalletFlow(mac),
    changePinFlow(mac),
    unregisteredFlow,
  ];
}
