// The Configs panel: one entry per config definition from the worker, with its source label,
// default and allowed values, and an input that is validated by the worker (so the rules are
// the engine's, never re-implemented here) as the reader types. The values in the panel are
// the cluster's static configs when it (re)starts; a dynamic config can also be applied to the
// running cluster with its "Apply now" button (sim.act set_config).
//
// The check of a field answers later than the reader types, so neither Start nor "Apply now"
// trusts it: both send the field's text as it stands at the click, and the worker checks it
// again (sim.start and set_config refuse a bad value with the same message). A value the reader
// typed is therefore either used or refused aloud, never silently replaced by the default
// because the check of the previous text said no, or had not answered yet.

import { ProtocolError, type ConfigDef, type ConfigValue, type ValidateBody, type ValidateRequest } from "./protocol";
import { S } from "./strings";

/** Sends one config.validate request. */
export type Validator = (req: ValidateRequest) => Promise<ValidateBody>;

/** Applies a dynamic config to the running cluster; rejects with the cluster's message. */
export type Applier = (name: string, value: ConfigValue) => Promise<void>;

/** The rendered panel. */
export interface ConfigPanel {
  /**
   * The configs whose field holds a value other than the default, as the fields stand now,
   * for sim.start: whatever their check said, or whether it has answered yet. sim.start checks
   * them again and refuses a bad one with the engine's message, so the cluster never starts
   * with the default in place of a value the reader typed.
   */
  values(): Record<string, ConfigValue>;
}

interface EntryState {
  def: ConfigDef;
  read: () => ConfigValue;
  text: () => string;
}

/** Receives a validation request that failed for a reason other than a dead worker. */
export type FailureHandler = (err: Error) => void;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/**
 * The value to send for a field's text. Integers are sent as JSON numbers when JavaScript can
 * hold them exactly, so Kafka-style messages read `Invalid value 105` rather than `"105"`;
 * anything else goes as text and the engine parses it as it would a server.properties line.
 */
export function valueOf(def: ConfigDef, input: HTMLInputElement | HTMLSelectElement): boolean | number | string {
  if (def.type === "boolean" && input instanceof HTMLInputElement && input.type === "checkbox") return input.checked;
  const text = input.value.trim();
  if ((def.type === "int" || def.type === "long") && /^-?\d+$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  return input.value;
}

function field(def: ConfigDef, id: string): HTMLInputElement | HTMLSelectElement {
  if (def.choices && def.choices.length > 0) {
    const sel = el("select", { id });
    for (const c of def.choices) {
      const o = el("option", { value: c }, c);
      if (c === def.defaultText) o.selected = true;
      sel.append(o);
    }
    return sel;
  }
  if (def.type === "boolean") {
    const box = el("input", { id, type: "checkbox" });
    box.checked = def.default === true;
    return box;
  }
  const numeric = def.type === "int" || def.type === "long";
  const input = el("input", {
    id,
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    ...(numeric ? { inputmode: "numeric" } : {}),
  });
  input.value = def.defaultText;
  return input;
}

function entry(
  def: ConfigDef,
  index: number,
  validate: Validator,
  onFailure: FailureHandler,
  apply: Applier | undefined,
  states: EntryState[],
): HTMLLIElement {
  const id = `cfg-${index}`;
  const ids = { err: `${id}-err`, allowed: `${id}-allowed`, doc: `${id}-doc`, note: `${id}-note` };
  const input = field(def, id);
  const error = el("p", { id: ids.err, class: "config-error", "aria-live": "polite" });
  const describedBy = [ids.err, ids.allowed, ids.doc];

  const head = el(
    "div",
    { class: "config-head" },
    el("label", { for: id, class: "config-name" }, el("code", {}, def.name)),
    el("span", { class: `badge source source-${def.sourceKey}`, title: def.source }, def.source),
    el(
      "span",
      { class: "badge plain", title: S.configDynamicHint },
      def.dynamic ? S.configDynamic : S.configStatic,
    ),
  );
  const meta = el(
    "dl",
    { class: "config-meta" },
    el("dt", {}, S.configType),
    el("dd", {}, def.type),
    el("dt", {}, S.configDefault),
    el("dd", {}, el("code", {}, def.defaultText)),
    el("dt", {}, S.configAllowed),
    el("dd", { id: ids.allowed }, def.allowed),
    el("dt", {}, S.configScope),
    el("dd", {}, def.scope === "topic" ? S.scopeTopic : S.scopeCluster),
  );
  const controls = el("div", { class: "config-input" }, input);
  let button: HTMLButtonElement | undefined;
  if (def.dynamic && apply) {
    button = el("button", { type: "button", class: "config-apply", "aria-describedby": `${id}-when` }, S.configApply);
    controls.append(button);
  }
  controls.append(error);
  const li = el(
    "li",
    { class: "config", "data-config": def.name, "data-source": def.sourceKey },
    head,
    controls,
    el("p", { id: `${id}-when`, class: "config-when" }, def.dynamic ? S.configApplyHint : S.configStaticHint),
    el("p", { id: ids.doc, class: "config-doc" }, def.doc),
  );
  if (def.note) {
    li.append(el("p", { id: ids.note, class: "config-note" }, el("strong", {}, S.configNote), " ", def.note));
    describedBy.push(ids.note);
  }
  li.append(meta);
  input.setAttribute("aria-describedby", describedBy.join(" "));
  input.setAttribute("aria-invalid", "false");

  const state: EntryState = {
    def,
    read: () => valueOf(def, input),
    text: () => (input instanceof HTMLInputElement && input.type === "checkbox" ? String(input.checked) : input.value.trim()),
  };
  states.push(state);
  const showError = (message: string) => {
    input.setAttribute("aria-invalid", message ? "true" : "false");
    li.classList.toggle("invalid", message !== "");
    error.textContent = message;
  };

  // The field's version: bumped by every edit. An answer (a check's or an apply's) is shown
  // only while the field still holds the text it was about: replies can arrive after the
  // reader typed on, and a reply to an older text must not speak for the new one.
  let version = 0;
  button?.addEventListener("click", async () => {
    // What the reader sees when they click is what is applied: the text, not the last check.
    const asked = version;
    const text = state.text();
    try {
      await apply!(def.name, state.read());
      li.dataset.applied = text;
      if (asked === version) showError("");
    } catch (e) {
      if (asked === version) showError(e instanceof Error ? e.message : String(e));
    }
  });

  const check = async () => {
    const mine = ++version;
    // Until the answer comes, the error shown is the previous text's: Apply may send the new
    // text (set_config checks it again), and the page says a check is awaited.
    if (button) button.disabled = false;
    li.dataset.check = "pending";
    let res: ValidateBody;
    try {
      res = await validate({ name: def.name, value: valueOf(def, input) });
    } catch (e) {
      // A dead worker is already on the error panel; any other failure is a bug to report.
      if (!(e instanceof ProtocolError && e.code === "worker_dead")) onFailure(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (mine !== version) return;
    li.dataset.check = res.valid ? "valid" : "invalid";
    // Disabled only while the text it would send is known to be refused.
    if (button) button.disabled = !res.valid;
    showError(res.valid ? "" : (res.error ?? ""));
  };
  input.addEventListener("input", check);
  input.addEventListener("change", check);
  return li;
}

/** Renders every definition into list, replacing what was there. */
export function renderConfigs(
  list: HTMLElement,
  defs: ConfigDef[],
  validate: Validator,
  onFailure: FailureHandler,
  apply?: Applier,
): ConfigPanel {
  const states: EntryState[] = [];
  list.replaceChildren(...defs.map((d, i) => entry(d, i, validate, onFailure, apply, states)));
  return {
    values() {
      const out: Record<string, ConfigValue> = {};
      for (const s of states) {
        if (s.text() !== s.def.defaultText) out[s.def.name] = s.read();
      }
      return out;
    },
  };
}
