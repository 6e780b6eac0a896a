/**
 * An actor type as a caller addresses it: its name, the messages it takes, and what each kind of
 * message answers. `Asker.ask(ref, key, msg)` checks the message against the union and
 * types the reply by the message's kind, so a wrong message or a wrong reading of a reply is a
 * compile error, with no cast at the call site.
 */
export interface ActorRef<M extends { kind: string }, R extends { [K in M['kind']]: unknown }> {
  readonly type: string;
  /** Types only: never set at run time. */
  readonly types?: { messages: M; replies: R };
}

/** The reference of an actor type named `type` (its `ActorDefinition.type`). */
export function actorRef<M extends { kind: string }, R extends { [K in M['kind']]: unknown }>(
  type: string,
): ActorRef<M, R> {
  return { type };
}
