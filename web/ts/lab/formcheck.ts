// The lab form's check by the Go side (lab.plan): asked for a moment after the reader's last
// change, answered by a worker whenever it gets to it, and shown only while it is about the
// form as it stands. A change, or a later check, makes the answer to every request made before
// it stale, however the replies and the changes interleave: a reply that arrives after the
// reader typed on is dropped even when no newer check has begun yet (the timer is still
// waiting), otherwise the page would show, as the form's, errors for a form it no longer has.
//
// This module is only that bookkeeping; what to ask and how to show it stay in main.ts, so
// that a unit test (web/ts/test/formcheck.test.ts) can hold a worker's reply, change the form,
// and release the reply in any order.

/** The timers a FormCheck waits with: the window's in the page, a test's own under Node. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

/** What a FormCheck does with the page: ask the worker, show an answer, say one is awaited. */
export interface FormCheckHooks<A> {
  /** Asks the worker to check the form as it stands when called. */
  ask(): Promise<A>;
  /** Shows an answer about the form as it stands; n numbers the check (later checks, higher n). */
  show(answer: A, n: number): void;
  /** The form changed: what is shown is no longer its check, and one will be asked for. */
  pending(): void;
}

/** How long the form must stay unchanged before it is checked (ms): a check per pause, not per key. */
export const CHECK_DELAY_MS = 200;

/** Checks a form as the reader edits it, and shows only the answers that are about it as it stands. */
export class FormCheck<A> {
  /**
   * The form's version: bumped by every change and every check asked for. An answer is shown
   * when the version is still the one its request took.
   */
  private version = 0;
  private changes = 0;
  private timer: number | undefined;

  constructor(
    private readonly hooks: FormCheckHooks<A>,
    private readonly timers: Timers,
    readonly delayMs = CHECK_DELAY_MS,
  ) {}

  /**
   * The reader changed the form: every answer to a check asked for before now is dropped, and
   * a check is asked for once the form has stayed unchanged for delayMs.
   */
  changed(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.version++;
    this.changes++;
    this.hooks.pending();
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.now();
    }, this.delayMs);
  }

  /**
   * How many times the reader has changed the form: two equal counts mean the same form (a
   * check, unlike the version, leaves it unchanged).
   */
  get edits(): number {
    return this.changes;
  }

  /**
   * Asks for a check of the form as it stands, now, and shows the answer unless the form
   * changed or another check was asked for meanwhile. Resolves with the answer either way
   * (the page's first check waits for it); rejects as the request does.
   */
  async now(): Promise<A> {
    const mine = ++this.version;
    const answer = await this.hooks.ask();
    if (mine === this.version) this.hooks.show(answer, mine);
    return answer;
  }

  /**
   * Asks the worker something else whose answer also speaks for the form (the plan a Compare
   * or Sweep click runs), and calls show with it only if the form has neither changed nor been
   * checked again since: the plan is of the form at the click, and once the reader has changed
   * it, its errors are no longer the form's. Resolves with the answer either way (the click
   * runs the plan it asked for); rejects as the request does.
   */
  async sideRequest<B>(ask: () => Promise<B>, show: (answer: B) => void): Promise<B> {
    const asked = this.version;
    const answer = await ask();
    if (asked === this.version) show(answer);
    return answer;
  }
}
