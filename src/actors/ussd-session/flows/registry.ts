import type { TextKey } from '../catalog/index.js';
import type { Audience } from './kit.js';

/**
 * A menu flow: its states (xstate state configs, keys prefixed by the flow id so flows never
 * collide), the state it starts in, and the main-menu entry that leads there for its audiences.
 * A deployer adds a flow by writing one such object and listing it in `flows` below.
 */
export interface FlowDefinition {
  id: string;
  audiences: readonly Audience[];
  /** The main-menu label; absent for flows entered otherwise (the first PIN). */
  label?: TextKey;
  entry: string;
  states: Record<string, Record<string, unknown>>;
}
