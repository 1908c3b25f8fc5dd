// Which of the lab form's errors a check speaks for. The form's own check sends everything the
// form states; a Compare click's plan leaves out the sweep's grid and base lines, and a Sweep
// click's leaves out the policies. An answer clears and blocks only for what it was sent: the
// errors of the parts it did not check stay shown (they are still the form's) until a check
// that did says otherwise.

/** What a lab.plan request was sent: the whole form, or a Compare or Sweep click's parts of it. */
export type CheckScope = "form" | "compare" | "sweep";

/** Whether field (an error's field, or a slot's data-error-for) is part of the sweep's input. */
function sweepPart(field: string): boolean {
  return /^(grid|sweepBase)($|[.[])/.test(field);
}

/** Whether field is one of the policies. */
function policyPart(field: string): boolean {
  return /^policies($|[.[])/.test(field);
}

/** Whether a check of scope was sent field, and so may clear its error or mark it valid. */
export function checks(scope: CheckScope, field: string): boolean {
  if (scope === "compare") return !sweepPart(field);
  if (scope === "sweep") return !policyPart(field);
  return true;
}

/**
 * What a check's errors say of the two buttons: whether Compare and whether Sweep is blocked,
 * each left undefined when the check was not sent everything that button runs (a Compare
 * click's plan knows nothing of the grid, a Sweep click's nothing of the policies).
 */
export function blocked(scope: CheckScope, errs: { field: string }[]): { compare?: boolean; sweep?: boolean } {
  const out: { compare?: boolean; sweep?: boolean } = {};
  if (scope !== "sweep") out.compare = errs.some((e) => !sweepPart(e.field));
  if (scope !== "compare") out.sweep = errs.some((e) => !policyPart(e.field));
  return out;
}
