// Telling a canvas that the device pixel ratio changed.
//
// A canvas's backing store is its CSS size times the device pixel ratio, so the canvases size
// it on a resize. The ratio can change with no resize: a window dragged to a screen of
// another density, or the browser's zoom on some systems. A canvas then goes on drawing at
// the old resolution, blurred on the denser screen, so the canvases listen for the change too.

/** What onPixelRatioChange reads of the window (a test gives it a fake one). */
export interface PixelRatioSource {
  readonly devicePixelRatio: number;
  matchMedia?(query: string): { addEventListener?(type: "change", listener: () => void, options: { once: boolean }): void } | undefined;
}

/**
 * Calls changed each time the device pixel ratio changes. A media query matches one ratio, so
 * it is made again for the new ratio at each change; a window without matchMedia (a test's
 * fake DOM) is never told. The range of ±0.001 matches a ratio such as 1.100000023841858
 * (a 110 % zoom), which an exact (resolution: …) query written from it may not.
 */
export function onPixelRatioChange(changed: () => void, w: PixelRatioSource = window): void {
  const arm = () => {
    const r = w.devicePixelRatio || 1;
    const query = `(min-resolution: ${r - 0.001}dppx) and (max-resolution: ${r + 0.001}dppx)`;
    w.matchMedia?.(query)?.addEventListener?.(
      "change",
      () => {
        arm();
        changed();
      },
      { once: true },
    );
  };
  arm();
}
