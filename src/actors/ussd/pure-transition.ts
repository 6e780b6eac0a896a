import { createActor, type AnyStateMachine, type EventFrom, type SnapshotFrom } from 'xstate';

/**
 * xstate's pure `transition()` and `initialTransition()`, without their cost: each call of those
 * builds a whole inert actor, whose constructor runs the machine's initial transition again
 * (measured: the largest part of a USSD hop's CPU in the worker). One inert scope per machine
 * serves every call instead. It is safe because the flows only `assign` and guard (resolved
 * inside the transition): no action is executed, spawned or sent, so the scope's `self` and
 * `system` are never used, and the actions a step would execute are dropped as before.
 */
export function pureTransitions<M extends AnyStateMachine>(machine: M) {
  const self = createActor(machine);
  const scope = {
    self,
    id: '',
    sessionId: '',
    system: self.system,
    defer: () => undefined,
    logger: () => undefined,
    stopChild: () => undefined,
    emit: () => undefined,
    actionExecutor: () => undefined,
  } as unknown as Parameters<M['transition']>[2];
  return {
    initial: (input: unknown): SnapshotFrom<M> => machine.getInitialSnapshot(scope, input) as SnapshotFrom<M>,
    next: (snapshot: SnapshotFrom<M>, event: EventFrom<M>): SnapshotFrom<M> =>
      machine.transition(snapshot, event, scope) as SnapshotFrom<M>,
  };
}
