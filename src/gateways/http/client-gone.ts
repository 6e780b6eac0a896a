/**
 * Whether the client of one request has gone away (uWS `onAborted`). An `AbortSignal` is made
 * only when asked for (a handler, a streamed reply): creating an AbortController for every
 * request cost ~8 µs of the event loop here, and most requests end without anyone listening.
 */
export class ClientGone {
  private goneAlready = false;
  private controller: AbortController | undefined;
  private readonly listeners: Array<() => void> = [];

  get gone(): boolean {
    return this.goneAlready;
  }

  /** Fires `listener` once when the client goes (at once if it has). */
  onGone(listener: () => void): void {
    if (this.goneAlready) listener();
    else this.listeners.push(listener);
  }

  /** A signal that aborts when the client goes. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.goneAlready) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** The client went away. */
  fire(): void {
    if (this.goneAlready) return;
    this.goneAlready = true;
    this.controller?.abort();
    for (const listener of this.listeners.splice(0)) listener();
  }
}
