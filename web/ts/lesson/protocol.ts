// The lesson.* messages' types (web/PROTOCOL.md, "Lessons"; Go: wasm/bridge/lesson.go). They
// join protocol.ts's Messages by declaration merging, so WorkerClient.request is typed for
// them without this feature editing the shared file.

import type { LoadBody } from "../protocol";

export interface LessonLinkRef {
  title: string;
  url: string;
}

export interface LessonSummary {
  id: string;
  number: number;
  title: string;
  summary: string;
  /** An estimate: reading time plus two minutes a step with a goal. */
  minutes: number;
  steps: string[];
  links: LessonLinkRef[];
}

export interface LessonStep {
  title: string;
  /** Markdown. */
  text: string;
  task: string;
  goals: string[];
  hints: string[];
  sandbox: boolean;
  demo: boolean;
  pauses: number;
  reference: string[];
}

export interface LessonGoal {
  goal: string;
  holds: boolean;
  explain: string;
}

export interface LessonCheckBody {
  lesson: string;
  step: number;
  timeMs: number;
  goals: LessonGoal[];
  done: boolean;
  stepTimeMs: number;
  paused?: string;
}

export interface LessonOpenBody {
  run: LoadBody;
  lesson: LessonSummary;
  intro: string;
  steps: LessonStep[];
  step: number;
  next: string;
  check: LessonCheckBody;
}

export interface LessonPlayBody {
  ran: number;
  finished: boolean;
  check: LessonCheckBody;
}

declare module "../protocol" {
  interface Messages {
    "lesson.list": { req: Record<string, never>; res: { lessons: LessonSummary[] } };
    "lesson.open": { req: { lesson: string; step: number }; res: LessonOpenBody };
    "lesson.check": { req: Record<string, never>; res: LessonCheckBody };
    "lesson.play": { req: { what: "reference" | "demo" | "continue" }; res: LessonPlayBody };
  }
}
