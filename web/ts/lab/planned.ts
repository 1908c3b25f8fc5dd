// A Compare or Sweep click's plan, kept with the form it was asked of. The runs take seconds to
// minutes and the reader may edit the form meanwhile, so what the page shows or keeps about
// them — the note when every policy came out the same, the link that names the comparison, the
// comparison a heatmap cell opens — comes from the form the click read, never from the form as
// it stands when the plan or the runs come back.
//
// This module only keeps the click's form with its plan and derives from them; reading the
// form and drawing stay in main.ts, so that a unit test (web/ts/test/planned.test.ts) can hold
// the plan, change the form, and check what the page keeps.

import type { FormCheck } from "./formcheck";
import type { LabState } from "./link";
import type { Axis, CellPlan, PlanRequest, PolicyPlan } from "./protocol";

/** The form as a click read it: what the URL keeps of it, and the plan request it makes. */
export interface ClickForm {
  /** The form as the link keeps it (LabState, without the run it names). */
  state: LabState;
  /** The lab.plan request of the form, with the click's parts (policies, or grid and base). */
  request: PlanRequest;
}

/** A click's plan with the form it was asked of. */
export interface Planned<P> {
  /** The form at the click: what the plan, and so the runs, are of. */
  readonly form: ClickForm;
  readonly plan: P;
  /** Whether the reader has left the form as the click read it. */
  current(): boolean;
}

/**
 * Reads the form once, at the click, and asks for its plan (its errors shown through check's
 * sideRequest, only while they are the form's). Resolves with the plan kept with that form.
 */
export async function planClick<P>(
  check: FormCheck<unknown>,
  read: () => ClickForm,
  ask: (req: PlanRequest) => Promise<P>,
  show: (plan: P) => void,
): Promise<Planned<P>> {
  const form = read();
  const edits = check.edits;
  const plan = await check.sideRequest(() => ask(form.request), show);
  return { form, plan, current: () => check.edits === edits };
}

/**
 * The link to keep once a comparison is planned: the planned form naming the run, or
 * undefined when the reader has changed the form since the click. A link that names a run
 * reruns it on opening, so it must hold the form the run is of; and a form the reader has
 * edited since is theirs to keep in the URL (the page already put it there) rather than be
 * replaced by the older one.
 */
export function runLink(planned: Planned<unknown>, run: string): LabState | undefined {
  return planned.current() ? { ...planned.form.state, r: run } : undefined;
}

/** The config whose cap the "same results" note compares with the runs' largest election count. */
export const MAX_PER_RUN = "leader.imbalance.election.max.per.run";

/**
 * The smallest max.per.run the planned policies set (undefined when none sets one): the cap
 * the runs ran with, from the plan's overrides, not the form's lines as they are now.
 */
export function plannedCap(policies: PolicyPlan[]): number | undefined {
  const caps = policies.flatMap((p) => p.overrides.filter((o) => o.name === MAX_PER_RUN && /^\d+$/.test(o.value)).map((o) => Number(o.value)));
  return caps.length ? Math.min(...caps) : undefined;
}

/**
 * The overrides of the comparison a sweep's heatmap cell opens: the base lines the sweep was
 * planned with (blank ones left out), then the cell's value on each axis.
 */
export function cellOverrides(planned: Planned<{ sweep?: { axes: Axis[] } }>, cell: CellPlan): string[] {
  const base = (planned.form.request.sweepBase ?? []).filter((l) => l.trim() !== "");
  const axes = planned.plan.sweep?.axes ?? [];
  return [...base, ...axes.map((a, i) => `${a.name}=${cell.values[i]}`)];
}
