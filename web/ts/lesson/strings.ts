// The lesson runner's and the lesson index's strings (the page's catalogue is ../strings.ts;
// this one holds the lessons' own, so the two features do not edit one file at once). HTML
// skeletons carry data-lsn keys into it.

export const L = {
  lessonsLink: "Lessons",
  indexTitle: "KRaft Lab: lessons",
  indexHeading: "Lessons",
  indexIntro:
    "Ten short lessons on how the KRaft controller keeps a cluster alive and gives leadership back after a restart, today and with KIP-1358. Each sets up a cluster in the playground, asks you to do something, and checks when you got there. Your progress stays in this browser.",
  toPlayground: "Playground",
  resetProgress: "Reset progress",
  progressReset: "Progress cleared.",
  progressNotKept: "This browser blocks the page's storage, so your progress will not be kept: the lessons work, but none will show as started or done after you leave.",
  skipToMain: "Skip to main content",
  minutes: (n: number) => `about ${n} min`,
  stepsCount: (n: number) => `${n} steps`,
  stateNew: "not started",
  stateStarted: (done: number, of: number) => `${done} of ${of} steps done`,
  stateDone: "done",
  start: "Start",
  resume: (step: number) => `Continue at step ${step}`,
  reviewLesson: "Open again",

  panelLabel: "Lesson",
  lessonOf: (n: number, title: string) => `Lesson ${n}: ${title}`,
  stepOf: (i: number, n: number) => `Step ${i + 1} of ${n}`,
  opening: "Opening the lesson…",
  openingStep: (i: number) => `Setting up step ${i + 1}…`,
  taskLabel: "Your task",
  goalsLabel: "Goals",
  goalHolds: "done",
  goalOpen: "not yet",
  allDone: "All goals met. Well done.",
  sandbox: "Sandbox: no goal here, the cluster is yours.",
  hint: "Hint",
  nextHint: "Another hint",
  noMoreHints: "No more hints: try “Show me”.",
  showMe: "Show me",
  showMeTitle: "Go back to this step's start and play the reference actions",
  playDemo: "Play the demo",
  continueDemo: "Continue",
  demoQuestion: "Think about it:",
  back: "Back",
  forward: "Next step",
  reset: "Reset step",
  nextLesson: "Next lesson",
  courseDone: "That was the last lesson.",
  close: "Leave the lesson",
  links: "Read more",
  stepLink: "Link to this step",
  index: "All lessons",
  played: (n: number) => `played ${n} action${n === 1 ? "" : "s"} of the step`,
  badLink: (what: string) => `This lesson link cannot be read (${what}).`,
  openFailed: (msg: string) => `This lesson link cannot be opened: ${msg}`,
  noSuchStep: (step: number, n: number, title: string, steps: number) =>
    `This lesson link cannot be opened: lesson ${n}, “${title}”, has no step ${step}; its steps are 1 to ${steps}.`,
  pickLesson: "Pick a lesson:",
  replaced: "The lesson's cluster was replaced; open the lesson again to go on.",
  predictLabel: "Predict first:",
  predictClick: "Or click the broker on the canvas.",
  predictNext: "Now do the task (or “Show me”) and see what happens.",
  predicted: (label: string) => `You predicted: ${label}.`,
  predictRight: (label: string) => `You were right: ${label}.`,
  predictWrong: (said: string, happened: string) => `You predicted ${said}; what happened: ${happened}.`,
  predictNone: (said: string) => `You predicted ${said}; none of the options describes what happened your way.`,
  momentHow: "Click or drag on the timeline (or use the arrow keys), then mark the moment.",
  momentLabel: "The moment you predict, on a timeline of this step",
  momentMark: "Mark this moment",
  momentNow: "now",
  momentLegend: (tol: string) => `Blue: your mark. Green: what happened, shaded ${tol} either side (what counts as right).`,
  momentAt: (clock: string, after: string) => `${clock} on the clock, ${after} after the step's start`,
  momentHappened: (clock: string) => `What happened: ${clock}`,
  momentMarked: (clock: string, after: string) => `You marked ${clock} on the clock, ${after} after the step's start.`,
  momentRight: (marked: string, at: string, off: string, tol: string) =>
    `You were right: you marked ${marked}, it happened at ${at}, ${off} off (within ${tol} counts).`,
  momentWrong: (marked: string, at: string, off: string, earlier: boolean, tol: string) =>
    `You marked ${marked}; it happened at ${at}, ${off} ${earlier ? "before" : "after"} your mark (within ${tol} counts as right).`,
  momentNone: (marked: string) => `You marked ${marked}; in your run it did not happen before the goals were met.`,
  challenge: "Challenge",
  challengeNote: "Any way to the goal counts.",
  undo: "Undo",
  undoTitle: "Take back your last action in this step (Ctrl+Z)",
  undone: "undid the last action",
  pictureGoal: "Goal",
  pictureNow: "Now",
  pictureDiffers: (n: number) => (n === 1 ? "1 difference" : `${n} differences`),
  pictureMet: "Goal met: what still differs is not part of it.",
  pictureSame: "Matches the goal.",
  picState: (s: string) =>
    ({ up: "up", stopped: "stopped", starting: "starting", fenced: "fenced", gated: "gated", shutting_down: "shutting down" })[s] ?? s,
  picLeaders: (n: number) => `★${n}`,
  picLeader: "leader",
  picInIsr: "in the ISR",
  picOutOfIsr: "out of the ISR",
  picNoLeader: "no leader",
  picDiffers: "differs from the goal",
  sceneOf: (i: number, n: number, title: string) => `${title} · scene ${i + 1} of ${n}`,
  scenePlaying: "▶",
  sceneDone: "■",
  talkKeys: "PageDown / → next scene, PageUp / ← previous, Home the first, Esc leaves the talk",
  modelNote: "Figures tagged so come from this model's assumptions, not from Kafka.",
} as const;

type TextKey = { [K in keyof typeof L]: (typeof L)[K] extends string ? K : never }[keyof typeof L];

function isTextKey(k: string): k is TextKey {
  return Object.prototype.hasOwnProperty.call(L, k) && typeof (L as Record<string, unknown>)[k] === "string";
}

/** Fills data-lsn="key" (text), data-lsn-label="key" (aria-label) and data-lsn-title="key" (title); an unknown key throws. */
export function applyLessonStrings(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-lsn]"))) {
    const k = el.dataset.lsn ?? "";
    if (!isTextKey(k)) throw new Error(`unknown lesson string key data-lsn="${k}"`);
    el.textContent = L[k];
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-lsn-label]"))) {
    const k = el.dataset.lsnLabel ?? "";
    if (!isTextKey(k)) throw new Error(`unknown lesson string key data-lsn-label="${k}"`);
    el.setAttribute("aria-label", L[k]);
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-lsn-title]"))) {
    const k = el.dataset.lsnTitle ?? "";
    if (!isTextKey(k)) throw new Error(`unknown lesson string key data-lsn-title="${k}"`);
    el.title = L[k];
  }
}
