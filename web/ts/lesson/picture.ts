// The goal as a picture: the state a step's reference reaches (who leads, who is in the ISR,
// which broker is stopped, fenced or gated, how many leaders each has) drawn small beside the
// learner's current state, with what differs marked on the current one. diffPicture is plain
// data (tested under Node); drawPicture builds DOM with textContent only.

/** A cluster state as lessons.Picture (Go) sends it. */
export interface Picture {
  brokers: { id: number; state: string; leaders: number }[];
  partitions: { name: string; leader: number; isr: number[]; replicas: number[] }[];
}

/** What differs in a picture from the goal: broker states and leader counts, partition leaders and ISR members. */
export interface PictureDiff {
  brokerState: Set<number>;
  brokerLeaders: Set<number>;
  leader: Set<string>;
  /** "payments-0/2": replica 2's ISR membership differs. */
  isr: Set<string>;
  /** How many things differ. */
  count: number;
}

export function diffPicture(goal: Picture, now: Picture): PictureDiff {
  const d: PictureDiff = { brokerState: new Set(), brokerLeaders: new Set(), leader: new Set(), isr: new Set(), count: 0 };
  for (const g of goal.brokers) {
    const n = now.brokers.find((b) => b.id === g.id);
    if (!n) continue;
    if (n.state !== g.state) d.brokerState.add(g.id);
    if (n.leaders !== g.leaders) d.brokerLeaders.add(g.id);
  }
  for (const g of goal.partitions) {
    const n = now.partitions.find((p) => p.name === g.name);
    if (!n) continue;
    if (n.leader !== g.leader) d.leader.add(g.name);
    for (const r of g.replicas) if (g.isr.includes(r) !== n.isr.includes(r)) d.isr.add(`${g.name}/${r}`);
  }
  d.count = d.brokerState.size + d.brokerLeaders.size + d.leader.size + d.isr.size;
  return d;
}

/** The words a picture uses; strings.ts has them. */
export interface PictureWords {
  state(state: string): string;
  leaders(n: number): string;
  leader: string;
  inIsr: string;
  outOfIsr: string;
  noLeader: string;
  differs: string;
}

function span(cls: string, text: string): HTMLSpanElement {
  return Object.assign(document.createElement("span"), { className: cls, textContent: text });
}

/**
 * Draws a picture into `into`. With `diff`, what differs from the goal is outlined and carries
 * a "≠" and the words "differs" for a screen reader, never colour alone.
 */
export function drawPicture(into: HTMLElement, p: Picture, w: PictureWords, diff?: PictureDiff): void {
  into.replaceChildren();
  const mark = (el: HTMLElement, on: boolean | undefined) => {
    if (!on) return;
    el.classList.add("differs");
    el.append(span("differs-mark", "≠"));
    el.setAttribute("aria-description", w.differs);
  };
  const brokers = document.createElement("ul");
  brokers.className = "pic-brokers";
  for (const b of p.brokers) {
    const li = document.createElement("li");
    li.className = "pic-broker";
    li.dataset.state = b.state;
    li.dataset.broker = String(b.id);
    const st = span("pic-state", w.state(b.state));
    mark(st, diff?.brokerState.has(b.id));
    const ld = span("pic-leaders", w.leaders(b.leaders));
    mark(ld, diff?.brokerLeaders.has(b.id));
    li.append(span("pic-id", String(b.id)), st, ld);
    brokers.append(li);
  }
  into.append(brokers);
  for (const part of p.partitions) {
    const row = document.createElement("div");
    row.className = "pic-partition";
    row.dataset.partition = part.name;
    row.append(span("pic-name", part.name));
    const reps = document.createElement("span");
    reps.className = "pic-replicas";
    for (const r of part.replicas) {
      const inIsr = part.isr.includes(r);
      const lead = part.leader === r;
      const box = span("pic-replica", String(r));
      box.dataset.isr = String(inIsr);
      box.dataset.leader = String(lead);
      box.title = [lead ? w.leader : "", inIsr ? w.inIsr : w.outOfIsr].filter(Boolean).join(", ");
      box.setAttribute("aria-label", `${r}: ${box.title}`);
      if (lead) box.prepend(span("pic-star", "★"));
      mark(box, diff?.isr.has(`${part.name}/${r}`));
      reps.append(box);
    }
    row.append(reps);
    if (part.leader < 0) {
      const none = span("pic-noleader", w.noLeader);
      mark(none, diff?.leader.has(part.name));
      row.append(none);
    } else if (diff?.leader.has(part.name)) {
      // The leader differs: outline the replica that leads now, unless its ISR mark did.
      const box = Array.from(reps.children).find((c) => (c as HTMLElement).dataset.leader === "true") as HTMLElement | undefined;
      if (box && !box.classList.contains("differs")) mark(box, true);
    }
    into.append(row);
  }
}
