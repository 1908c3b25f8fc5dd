// The cluster-wide actions under "More actions": cut or heal a network link, create or delete
// a topic, set a topic's config, run a preferred election now. Each form sends one sim.act and
// shows the worker's refusal next to the field it names (the worker's messages start with the
// field: "partitions: 0 is not allowed; allowed: 1 to 99,988").

import type { Frame, Layout } from "./frame";
import { ProtocolError, type ActBody, type ActRequest, type ConfigDef } from "./protocol";
import { S } from "./strings";

export interface ActionsDom {
  netA: HTMLSelectElement;
  netB: HTMLSelectElement;
  netCut: HTMLButtonElement;
  netHeal: HTMLButtonElement;
  netError: HTMLElement;
  netCuts: HTMLElement;
  topicForm: HTMLFormElement;
  topicName: HTMLInputElement;
  topicPartitions: HTMLInputElement;
  topicRf: HTMLInputElement;
  topicDelete: HTMLButtonElement;
  topicErrors: Record<"topic" | "partitions" | "replicationFactor", HTMLElement>;
  tcForm: HTMLFormElement;
  tcTopic: HTMLSelectElement;
  tcName: HTMLSelectElement;
  tcValue: HTMLInputElement;
  tcError: HTMLElement;
  elect: HTMLButtonElement;
}

function fill(select: HTMLSelectElement, values: string[]): void {
  const keep = select.value;
  if ([...select.options].map((o) => o.value).join("\n") === values.join("\n")) return;
  select.replaceChildren(...values.map((v) => Object.assign(document.createElement("option"), { value: v, textContent: v })));
  if (values.includes(keep)) select.value = keep;
}

export class ActionsPanel {
  private nodesKey = "";
  /** The layout whose topics the topic-config form lists. */
  private topicsOf: Layout | undefined;

  constructor(
    private readonly dom: ActionsDom,
    /** Sends the action; rejects with the worker's error. */
    private readonly act: (req: ActRequest) => Promise<ActBody>,
    /** Reports a failure that is not the reader's input (a dead worker, a bug). */
    private readonly failure: (what: string, e: unknown) => void,
    /** Writes a line in the event log (a refused election has no field to sit next to). */
    private readonly note: (text: string) => void,
  ) {
    dom.netCut.addEventListener("click", () => this.network("cut"));
    dom.netHeal.addEventListener("click", () => this.network("heal"));
    dom.topicForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.createTopic();
    });
    dom.topicDelete.addEventListener("click", () => this.deleteTopic());
    dom.tcForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.topicConfig();
    });
    dom.elect.addEventListener("click", () => this.elect());
  }

  /** The topic-level configs the engine knows (config.defs, scope "topic"). */
  setDefs(defs: ConfigDef[]): void {
    fill(
      this.dom.tcName,
      defs.filter((d) => d.scope === "topic").map((d) => d.name),
    );
  }

  /** Follows a frame: the nodes a link may join, the topics, the cut links. */
  update(f: Frame): void {
    const nodes = [
      ...f.body.brokers.map((b) => `broker-${b.id}`),
      ...f.body.controllers.map((c) => `controller-${c.id}`),
      "producers",
    ];
    const key = nodes.join(",");
    if (key !== this.nodesKey) {
      this.nodesKey = key;
      fill(this.dom.netA, nodes);
      fill(this.dom.netB, nodes);
      if (this.dom.netA.value === this.dom.netB.value && nodes.length > 1) this.dom.netB.value = nodes[1];
    }
    // The topics change only with the partition layout (a frame carries the same one until a
    // topic is created or deleted): the select's options are compared only then.
    if (f.layout !== this.topicsOf) {
      this.topicsOf = f.layout;
      fill(
        this.dom.tcTopic,
        f.layout.topics.filter((t) => !t.deleted).map((t) => t.name),
      );
    }
    const cuts = f.body.cuts ?? [];
    const text = cuts.length ? S.netCuts(cuts.map(([a, b]) => `${a} ↔ ${b}`).join(", ")) : S.netNone;
    if (this.dom.netCuts.textContent !== text) this.dom.netCuts.textContent = text;
  }

  /** Shortcuts of this panel; true when k was one. */
  key(k: string): boolean {
    if (k === "x" || k === "X") this.network("cut");
    else if (k === "h" || k === "H") this.network("heal");
    else if (k === "e" || k === "E") this.elect();
    else if (k === "t" || k === "T") {
      this.dom.topicName.focus();
      this.dom.topicName.select();
    } else return false;
    return true;
  }

  /** Selects broker `id` as the link's first node (the reader selected it). */
  selectBroker(id: number): void {
    const v = `broker-${id}`;
    if ([...this.dom.netA.options].some((o) => o.value === v)) this.dom.netA.value = v;
  }

  private network(op: "cut" | "heal"): void {
    this.dom.netError.textContent = "";
    this.send({ op, a: this.dom.netA.value, b: this.dom.netB.value }, (_field, msg) => {
      this.dom.netError.textContent = msg;
    });
  }

  private createTopic(): void {
    const { topicErrors: errs } = this.dom;
    for (const e of Object.values(errs)) e.textContent = "";
    const req: ActRequest = {
      op: "create_topic",
      topic: this.dom.topicName.value.trim(),
      partitions: Number(this.dom.topicPartitions.value),
      replicationFactor: Number(this.dom.topicRf.value),
    };
    this.send(req, (field, msg) => {
      const at = errs[field as keyof typeof errs] ?? errs.topic;
      at.textContent = msg;
      const input = { topic: this.dom.topicName, partitions: this.dom.topicPartitions, replicationFactor: this.dom.topicRf }[
        field as keyof typeof errs
      ];
      input?.setAttribute("aria-invalid", "true");
    });
    for (const i of [this.dom.topicName, this.dom.topicPartitions, this.dom.topicRf]) i.setAttribute("aria-invalid", "false");
  }

  private deleteTopic(): void {
    for (const e of Object.values(this.dom.topicErrors)) e.textContent = "";
    this.send({ op: "delete_topic", topic: this.dom.topicName.value.trim() }, (_f, msg) => {
      this.dom.topicErrors.topic.textContent = msg;
    });
  }

  private topicConfig(): void {
    this.dom.tcError.textContent = "";
    const text = this.dom.tcValue.value.trim();
    // Whole numbers go as JSON numbers so that Kafka's messages read "Invalid value 0".
    const value = text === "" ? null : /^-?\d{1,15}$/.test(text) ? Number(text) : text;
    this.send({ op: "set_config", topic: this.dom.tcTopic.value, name: this.dom.tcName.value, value }, (_f, msg) => {
      this.dom.tcError.textContent = msg;
    });
  }

  private elect(): void {
    this.send({ op: "elect_leaders", election: "preferred" }, (_f, msg) => this.note(S.actionFailed("elect leaders", msg)));
  }

  /** Sends an action; a refusal goes to show(field, message) with the field the worker named. */
  private send(req: ActRequest, show: (field: string, message: string) => void): void {
    this.act(req).catch((e: unknown) => {
      if (e instanceof ProtocolError && e.code === "failed") {
        const m = /^([A-Za-z]+): /.exec(e.message);
        show(m?.[1] ?? "", e.message);
      } else this.failure("sim.act", e);
    });
  }
}
