// The error panel: shown when the worker cannot start or dies, or the page itself fails. It
// collects every problem into one plain-text report that the reader can copy into a bug
// report, with the versions and browser that produced it.

import type { Problem } from "./protocol";
import { S } from "./strings";

export class ErrorPanel {
  private readonly problems: string[] = [];
  /** Facts for the report's header (version, Go version), filled in as they become known. */
  readonly facts = new Map<string, string>();

  constructor(
    private readonly panel: HTMLElement,
    private readonly report: HTMLElement,
    copyButton: HTMLButtonElement,
    private readonly copyStatus: HTMLElement,
  ) {
    copyButton.addEventListener("click", () => void this.copy());
  }

  /** Adds a problem to the report and shows the panel. */
  show(p: Problem): void {
    const when = new Date().toISOString();
    this.problems.push(`[${when}] ${p.message}` + (p.detail ? `\n${p.detail.trimEnd()}` : ""));
    this.report.textContent = this.text();
    this.panel.hidden = false;
  }

  /**
   * Offers a way back after the worker died: a sentence saying what happened and what the
   * button keeps, and the button (once, however many problems follow).
   */
  offerRestart(text: string, label: string, restart: () => void): void {
    if (this.panel.querySelector("#restart-simulator")) return;
    const p = document.createElement("p");
    p.id = "restart-text";
    p.textContent = text;
    const b = document.createElement("button");
    b.type = "button";
    b.id = "restart-simulator";
    b.textContent = label;
    b.addEventListener("click", restart);
    this.report.before(p, b);
    b.focus();
  }

  /** The whole report as plain text. */
  text(): string {
    const head = [
      `page: ${location.href}`,
      `browser: ${navigator.userAgent}`,
      ...Array.from(this.facts, ([k, v]) => `${k}: ${v}`),
    ];
    return [...head, "", ...this.problems].join("\n");
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.text());
      this.copyStatus.textContent = S.copyDone;
    } catch {
      // No clipboard (insecure origin, denied permission): select the text for a manual copy.
      const sel = window.getSelection();
      sel?.selectAllChildren(this.report);
      this.report.focus();
      this.copyStatus.textContent = S.copyFallback;
    }
  }
}
