// Presenter mode and reduced motion.
//
// Presenter mode (P) is for a projector: the side panels and the broker/controller panels are
// hidden (every action stays on the canvas's menus and on the keys), the canvas takes the
// width of the page, and everything on it is drawn 1.6× larger, charts and fonts included, so
// it reads from the back of a room. It is a class on <body> plus the renderer's scale, so
// every shortcut keeps working.
//
// Reduced motion: the page has no animation that carries meaning; with
// prefers-reduced-motion: reduce the CSS turns off the few cosmetic transitions (menus and
// tooltips fading in) and <body data-motion="reduced"> tells scripts the same.

/** How much larger the canvas draws in presenter mode. */
export const PRESENTER_SCALE = 1.6;

export interface PresenterHooks {
  /** The mode changed: redraw at the new scale, resize charts, say so. */
  changed(on: boolean): void;
}

export class Presenter {
  private on = false;
  private readonly motion = matchMedia("(prefers-reduced-motion: reduce)");

  constructor(private readonly hooks: PresenterHooks) {
    const motion = () => {
      document.body.dataset.motion = this.motion.matches ? "reduced" : "full";
    };
    motion();
    this.motion.addEventListener("change", motion);
  }

  get active(): boolean {
    return this.on;
  }

  /** Whether the reader asked the system for reduced motion. */
  get reducedMotion(): boolean {
    return this.motion.matches;
  }

  toggle(): void {
    this.set(!this.on);
  }

  set(on: boolean): void {
    if (on === this.on) return;
    this.on = on;
    document.body.classList.toggle("presenter", on);
    document.body.dataset.presenter = String(on);
    this.hooks.changed(on);
  }
}
