// The lesson.* messages' types (web/PROTOCOL.md, "Lessons"; Go: wasm/bridge/lesson.go). They
// join protocol.ts's Messages by declaration merging, so WorkerClient.request is typed for
// them without this feature editing the shared file.

import type { LoadBody } from "../protocol";
import type { Picture } from "./picture";

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
  /** The question asked before the run plays; absent when the step asks none. */
  predict?: { question: string; options: { label: string; broker: number }[]; reveal: string };
  /** The goal is a state, reached the learner's own way. */
  challenge: boolean;
  /** The state the reference reaches, drawn as the goal; absent for a sandbox. */
  picture?: Picture;
  /** A talk scene's caption (Markdown). */
  caption?: string;
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
  /** The prediction's option that holds now; -1 for none (or no prediction). */
  answer: number;
  /** The learner's state, pictured as the goal is. */
  now?: Picture;
  /** Something since the step's start can be undone. */
  undoable: boolean;
}

export interface LessonOpenBody {
  run: LoadBody;
  lesson: LessonSummary;
  intro: string;
  steps: LessonStep[];
  step: number;
  next: string;
  /** A talk: its steps are scenes. */
  talk: boolean;
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
    "lesson.undo": { req: Record<string, never>; res: LessonCheckBody };
  }
}
