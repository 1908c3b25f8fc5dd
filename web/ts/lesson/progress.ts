// Progress through the course, kept in the browser (localStorage), so that it survives a
// reload and the lesson index can show it. Nothing leaves the browser. The store is a small
// JSON object under one key; anything unreadable in it is ignored rather than trusted.

/** The localStorage key; bump the suffix if the shape changes. */
export const PROGRESS_KEY = "kraftlab.lessons.v1";

/** One lesson's progress: the steps whose goals were met, and the step last opened. */
export interface LessonProgress {
  done: number[];
  last: number;
}

export type Progress = Record<string, LessonProgress>;

/** The part of Storage this module uses (a fake in tests). */
export interface Store {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * The browser's localStorage behind a Store that never throws. Reading window.localStorage
 * itself throws a SecurityError when the browser's settings block storage for the page, so the
 * lessons reach it only through here: blocked storage reads as empty and writes are dropped.
 */
export const browserStore: Store = {
  getItem(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  setItem(key, value) {
    try {
      localStorage.setItem(key, value);
    } catch {
      // Blocked or full: see storageWorks.
    }
  },
  removeItem(key) {
    try {
      localStorage.removeItem(key);
    } catch {
      // As in setItem.
    }
  },
};

/** Whether the browser keeps what the page stores (false when storage is blocked or full). */
export function storageWorks(): boolean {
  const probe = PROGRESS_KEY + ".probe";
  try {
    localStorage.setItem(probe, "1");
    localStorage.removeItem(probe);
    return true;
  } catch {
    return false;
  }
}

/** Reads the progress; a missing, corrupt or foreign value reads as none. */
export function readProgress(store: Store): Progress {
  let raw: unknown;
  try {
    raw = JSON.parse(store.getItem(PROGRESS_KEY) ?? "{}");
  } catch {
    return {};
  }
  const out: Progress = {};
  if (!raw || typeof raw !== "object") return out;
  for (const [id, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^[\w.-]{1,80}$/.test(id) || !v || typeof v !== "object") continue;
    const { done, last } = v as { done?: unknown; last?: unknown };
    const steps = Array.isArray(done) ? done.filter((n): n is number => Number.isInteger(n) && n >= 0 && n < 100) : [];
    out[id] = { done: [...new Set(steps)].sort((a, b) => a - b), last: Number.isInteger(last) && (last as number) >= 0 ? (last as number) : 0 };
  }
  return out;
}

function write(store: Store, p: Progress): void {
  try {
    store.setItem(PROGRESS_KEY, JSON.stringify(p));
  } catch {
    // Storage full or disabled (a private window): progress is a convenience, not a must.
  }
}

/** Records that a step's goals were met. */
export function markDone(store: Store, lesson: string, step: number): Progress {
  const p = readProgress(store);
  const l = (p[lesson] ??= { done: [], last: step });
  if (!l.done.includes(step)) l.done = [...l.done, step].sort((a, b) => a - b);
  write(store, p);
  return p;
}

/** Records the step last opened, so the index can offer to continue there. */
export function markOpened(store: Store, lesson: string, step: number): Progress {
  const p = readProgress(store);
  (p[lesson] ??= { done: [], last: step }).last = step;
  write(store, p);
  return p;
}

/** Forgets all progress (the index's reset button). */
export function resetProgress(store: Store): void {
  try {
    store.removeItem(PROGRESS_KEY);
  } catch {
    // As in write.
  }
}

/**
 * How far a lesson is: "done" when every step with a goal is done (sandboxes need nothing),
 * "started" when it was opened or a step is done, else "new".
 */
export function lessonState(p: LessonProgress | undefined, goalSteps: number[]): "new" | "started" | "done" {
  if (!p) return "new";
  if (goalSteps.length > 0 && goalSteps.every((s) => p.done.includes(s))) return "done";
  return "started";
}
