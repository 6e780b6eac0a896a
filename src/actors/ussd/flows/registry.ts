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
  /** The main-menu label; absent for flows entered otherwise. */
  label?: TextKey;
  /**
   * Shown only while a registered phone's owner has no PIN (the first PIN's flow). A registered
   * audience's other flows are shown only once it has one; an unregistered phone sees its all.
   */
  whilePinUnset?: boolean;
  entry: string;
  states: Record<string, Record<string, unknown>>;
}
