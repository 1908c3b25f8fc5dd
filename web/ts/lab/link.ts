// The config lab's link (lab.html#lab=…): the form's state as base64url JSON. A link comes from
// anywhere (a chat, an old page, a hand edit), so decoding checks every field's type before
// the page uses any of it, and a link that fails says which field and why; the page then
// starts from its defaults. The Go side still validates every value the form holds.

/** The form's state, as the link holds it. */
export interface LabState {
  /** Form fields by name (the inputs' ids without "f-"): text, or a checkbox's state. */
  d: Record<string, string | boolean>;
  preset: string;
  p: string;
  pol: { name: string; overrides: string[] }[];
  g: [string, string];
  b: string;
  /** "compare": run the comparison on load (a shared result link). */
  r?: string;
}

/** The most a link may hold, in characters of its fragment (a form's state is a few kB). */
export const MAX_LAB_LINK = 200_000;
/** The most policies a link may name (the page compares a handful). */
export const MAX_LAB_POLICIES = 20;

/** Why a link could not be opened, in words for the reader (the page adds its frame). */
export class LabLinkError extends Error {}

/** The checkboxes among the form's fields: every other field holds text. */
const CHECKBOXES = new Set(["event.clean", "event.disk_swap"]);

function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? s.slice(0, 40) + "…" : s;
}

function bad(field: string, v: unknown, want: string): LabLinkError {
  return new LabLinkError(`its field "${field}" is ${describe(v)}, not ${want}`);
}

function text(o: Record<string, unknown>, field: string, fallback: string): string {
  const v = o[field];
  if (v === undefined) return fallback;
  if (typeof v !== "string") throw bad(field, v, "text");
  return v;
}

/**
 * Decodes a link's fragment (after "#lab="): the state it holds, or a LabLinkError naming the
 * first field that is wrong. fields lists the form's field names; a link may leave any out
 * (the form keeps its default) but may not name one the form does not have.
 */
export function decodeLabLink(fragment: string, fields: readonly string[]): LabState {
  if (fragment.length > MAX_LAB_LINK)
    throw new LabLinkError(`it is ${fragment.length.toLocaleString("en")} characters long; a lab link holds at most ${MAX_LAB_LINK.toLocaleString("en")}`);
  if (!/^[A-Za-z0-9_-]*$/.test(fragment)) throw new LabLinkError("it is not base64url text");
  let json: string;
  try {
    const bin = atob(fragment.replace(/-/g, "+").replace(/_/g, "/"));
    json = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    throw new LabLinkError("it is not base64url-encoded UTF-8 text");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new LabLinkError(`it is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new LabLinkError(`it holds ${describe(raw)}, not an object`);
  const o = raw as Record<string, unknown>;

  const d = o.d;
  if (typeof d !== "object" || d === null || Array.isArray(d)) throw bad("d", d, "an object of form fields");
  const known = new Set(fields);
  const form: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(d as Record<string, unknown>)) {
    if (!known.has(k)) throw new LabLinkError(`it names a form field "${describe(k).slice(1, -1)}" that the lab does not have`);
    if (CHECKBOXES.has(k) ? typeof v !== "boolean" : typeof v !== "string") throw bad("d." + k, v, CHECKBOXES.has(k) ? "true or false" : "text");
    form[k] = v as string | boolean;
  }

  const preset = o.preset;
  if (typeof preset !== "string") throw bad("preset", preset, "a preset's name");

  let pol: LabState["pol"] = [];
  if (o.pol !== undefined) {
    if (!Array.isArray(o.pol)) throw bad("pol", o.pol, "a list of policies");
    if (o.pol.length > MAX_LAB_POLICIES) throw new LabLinkError(`it names ${o.pol.length} policies; the lab compares at most ${MAX_LAB_POLICIES}`);
    pol = o.pol.map((p: unknown, i) => {
      if (typeof p !== "object" || p === null || Array.isArray(p)) throw bad(`pol[${i}]`, p, "a policy (a name and its overrides)");
      const q = p as Record<string, unknown>;
      if (typeof q.name !== "string") throw bad(`pol[${i}].name`, q.name, "text");
      if (!Array.isArray(q.overrides) || !q.overrides.every((x) => typeof x === "string"))
        throw bad(`pol[${i}].overrides`, q.overrides, "a list of name=value lines");
      return { name: q.name, overrides: q.overrides as string[] };
    });
  }

  let g: [string, string] = ["", ""];
  if (o.g !== undefined) {
    if (!Array.isArray(o.g) || o.g.length !== 2 || !o.g.every((x) => typeof x === "string")) throw bad("g", o.g, "two sweep axes as text");
    g = [o.g[0], o.g[1]];
  }
  const r = o.r === undefined ? undefined : text(o, "r", "");
  if (r !== undefined && r !== "compare") throw bad("r", r, `"compare" or absent`);
  return { d: form, preset, p: text(o, "p", ""), pol, g, b: text(o, "b", ""), ...(r ? { r } : {}) };
}

/** Encodes a state as a link's fragment (after "#lab="). */
export function encodeLabLink(s: LabState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(s));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
