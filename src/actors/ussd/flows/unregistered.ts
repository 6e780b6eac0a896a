import { t } from '../catalog/index.js';
import { choose, screen } from './kit.js';
import type { FlowDefinition } from './registry.js';

/** A phone no household or supplier is registered with: what the programme is, how to join. */
export const unregisteredFlow: FlowDefinition = {
  id: 'info',
  audiences: ['unregistered'],
  label: 'unregistered.about',
  entry: 'info_about',
  states: {
    info_about: screen(
      'menu',
      (c) => `${t(c.lang, 'unregistered.aboutText')}\n1 ${t(c.lang, 'unregistered.register')}`,
      [choose('1', 'info_register')],
    ),
    info_register: screen('menu', (c) => t(c.lang, 'unregistered.registerText')),
  },
};
