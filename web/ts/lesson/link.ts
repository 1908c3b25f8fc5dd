// Lesson links: every lesson and step has its own URL fragment, `#lesson=<id or number>&step=<n>`
// with n counted from 1 as people count (step=3 is the third step), so a link works on any
// static host and a speaker can open step 3 of lesson 6 directly: index.html#lesson=6&step=3.
// The share link's fragment (`#v=1&t=…&s=…`, share.ts) never has a `lesson` key, so the two
// cannot be confused.

export interface LessonLinkTarget {
  lesson: string;
  /** The step, from 0. */
  step: number;
}

/** A lesson link that cannot be read; its message is for the reader. */
export class LessonLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LessonLinkError";
  }
}

/**
 * Reads a URL fragment. undefined: it is not a lesson link. A lesson link whose values are
 * malformed throws a LessonLinkError; whether the lesson and step exist is the worker's to say.
 */
export function parseLessonLink(hash: string, bad: (what: string) => string): LessonLinkTarget | undefined {
  const frag = hash.replace(/^#/, "");
  if (!/(^|&)lesson=/.test(frag)) return undefined;
  const params = new URLSearchParams(frag);
  const lesson = params.get("lesson") ?? "";
  if (!/^[\w.-]{1,80}$/.test(lesson)) throw new LessonLinkError(bad(`lesson=${lesson}`));
  const step = params.get("step") ?? "1";
  if (!/^\d{1,3}$/.test(step) || Number(step) < 1) throw new LessonLinkError(bad(`step=${step}`));
  return { lesson, step: Number(step) - 1 };
}

/** The fragment (without '#') of a lesson's step. */
export function lessonLink(lesson: string, step: number): string {
  return `lesson=${encodeURIComponent(lesson)}&step=${step + 1}`;
}

/** A talk link: `#talk=<id>&scene=<n>`, n from 1 (scene=1 when absent). */
export interface TalkLinkTarget {
  talk: string;
  /** The scene, from 0. */
  scene: number;
}

/** Reads a talk link, as parseLessonLink does a lesson link. */
export function parseTalkLink(hash: string, bad: (what: string) => string): TalkLinkTarget | undefined {
  const frag = hash.replace(/^#/, "");
  if (!/(^|&)talk=/.test(frag)) return undefined;
  const params = new URLSearchParams(frag);
  const talk = params.get("talk") ?? "";
  if (!/^[\w.-]{1,80}$/.test(talk)) throw new LessonLinkError(bad(`talk=${talk}`));
  const scene = params.get("scene") ?? "1";
  if (!/^\d{1,3}$/.test(scene) || Number(scene) < 1) throw new LessonLinkError(bad(`scene=${scene}`));
  return { talk, scene: Number(scene) - 1 };
}

/** The fragment (without '#') of a talk's scene. */
export function talkLink(talk: string, scene: number): string {
  return `talk=${encodeURIComponent(talk)}&scene=${scene + 1}`;
}
