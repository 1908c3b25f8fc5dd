// The learner's predictions, recorded in this browser: which option they chose for a step's
// question, before the run played, and once known whether it was what happened. It goes
// through progress.ts's Store, which never throws: with storage blocked nothing is recorded and
// the page keeps this session's answers in memory anyway.

import type { Store } from "./progress";

export const PREDICTIONS_KEY = "kraftlab.predictions.v1";

/**
 * One recorded prediction: the option chosen (-1 for a moment marked on the timeline, atMs, in
 * step time), and whether it was what happened (once known).
 */
export interface PredictionRecord {
  chose: number;
  atMs?: number;
  right?: boolean;
}

type Records = Record<string, PredictionRecord>;

function key(lesson: string, step: number): string {
  return `${lesson}/${step}`;
}

/** Every recorded prediction by "lesson/step"; corrupt storage reads as none. */
export function readPredictions(store: Store): Records {
  try {
    const raw = store.getItem(PREDICTIONS_KEY);
    const v: unknown = raw ? JSON.parse(raw) : {};
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Records) : {};
  } catch {
    return {};
  }
}

/** Records a prediction (and, later, whether it was right). */
export function recordPrediction(store: Store, lesson: string, step: number, rec: PredictionRecord): void {
  const all = readPredictions(store);
  all[key(lesson, step)] = rec;
  store.setItem(PREDICTIONS_KEY, JSON.stringify(all));
}

/** The prediction recorded for a step, if any. */
export function predictionOf(store: Store, lesson: string, step: number): PredictionRecord | undefined {
  const r = readPredictions(store)[key(lesson, step)];
  if (!r || !Number.isInteger(r.chose)) return undefined;
  return r.chose >= 0 || Number.isFinite(r.atMs) ? r : undefined;
}
