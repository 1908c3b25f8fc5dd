// The lesson index (lessons.html): the course is in the HTML, written by build.go from the
// embedded lessons; this script adds the text from strings.ts and each lesson's progress from
// the browser's storage, a "continue" link to the step last opened, and the reset button.

import { lessonLink } from "./link";
import { browserStore, lessonState, readProgress, resetProgress, storageWorks } from "./progress";
import { L, applyLessonStrings } from "./strings";

function show(): void {
  const progress = readProgress(browserStore);
  for (const li of Array.from(document.querySelectorAll<HTMLElement>(".lesson-entry"))) {
    const id = li.dataset.lesson ?? "";
    const steps = Number(li.dataset.steps);
    const goalSteps = (li.dataset.goalSteps ?? "").split(",").filter(Boolean).map(Number);
    const p = progress[id];
    const state = lessonState(p, goalSteps);
    const label = li.querySelector<HTMLElement>(".lesson-state")!;
    label.dataset.state = state;
    li.dataset.state = state;
    const done = p ? p.done.filter((s) => goalSteps.includes(s)).length : 0;
    label.textContent = state === "new" ? L.stateNew : state === "done" ? L.stateDone : L.stateStarted(done, goalSteps.length);
    const resume = li.querySelector<HTMLAnchorElement>(".lesson-resume")!;
    resume.hidden = !p || state === "done" || p.last === 0 || p.last >= steps;
    if (p && !resume.hidden) {
      resume.href = `index.html#${lessonLink(id, p.last)}`;
      resume.textContent = L.resume(p.last + 1);
    }
    for (const step of Array.from(li.querySelectorAll<HTMLElement>(".lesson-step-list li"))) {
      step.dataset.done = String(!!p?.done.includes(Number(step.dataset.step)));
    }
  }
}

function main(): void {
  applyLessonStrings(document);
  document.title = L.indexTitle;
  for (const m of Array.from(document.querySelectorAll<HTMLElement>(".lesson-minutes"))) m.textContent = L.minutes(Number(m.dataset.minutes));
  for (const c of Array.from(document.querySelectorAll<HTMLElement>(".lesson-steps-count"))) c.textContent = L.stepsCount(Number(c.dataset.count));
  show();
  if (!storageWorks()) {
    // Blocked storage: the lessons work, but nothing the reader does is kept, so say so.
    document.body.dataset.storage = "blocked";
    (document.getElementById("reset-progress") as HTMLButtonElement).disabled = true;
    document.getElementById("reset-status")!.textContent = L.progressNotKept;
  }
  document.getElementById("reset-progress")?.addEventListener("click", () => {
    resetProgress(browserStore);
    show();
    document.getElementById("reset-status")!.textContent = L.progressReset;
  });
  // Another tab finishing a step updates this list.
  window.addEventListener("storage", show);
  document.body.dataset.ready = "true";
}

main();
