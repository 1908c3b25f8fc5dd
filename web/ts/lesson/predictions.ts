// The learner's predictions, recorded in this browser: which option they chose for a step's
// question, before the run played. A store that throws (storage blocked) records nothing and
// reads as none; the page keeps this session's answers in memory anyway.

export const PREDICTIONS_KEY = "kraftlab.predictions.v1";

/** What a prediction record needs of localStorage. */
export interface PredictionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** One recorded prediction: the option chosen, and whether it was what happened (once known). */
export interface PredictionRecord {
  chose: number;
  right?: boolean;
}

type Records = Record<string, PredictionRecord>;

function key(lesson: string, step: number): string {
  return `${lesson}/${step}`;
}

export function readPredictions(store: PredictionStore | undefined): Records {
  try {
    const raw = store?.getItem(PREDICTIONS_KEY);
    const v: unknown = raw ? JSON.parse(raw) : {};
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Records) : {};
  } catch {
    return {};
  }
}

/** Records a prediction (and, later, whether it was right); false when the store refused. */
export function recordPrediction(store: PredictionStore | undefined, lesson: string, step: number, rec: PredictionRecord): boolean {
  const all = readPredictions(store);
  all[key(lesson, step)] = rec;
  try {
    store?.setItem(PREDICTIONS_KEY, JSON.stringify(all));
    return !!store;
  } catch {
    return false;
  }
}

export function predictionOf(store: PredictionStore | undefined, lesson: string, step: number): PredictionRecord | undefined {
  const r = readPredictions(store)[key(lesson, step)];
  return r && Number.isInteger(r.chose) ? r : undefined;
}

/** localStorage, or undefined where reading the property itself throws (blocked storage). */
export function browserStore(): PredictionStore | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}
