// A tiny stand-in for the browser's DOM, enough for a test to construct a page module that
// builds and updates elements (the lesson panel, web/ts/lesson/panel.ts) under Node, which has
// no DOM. It keeps what a test reads back (text, hidden, dataset, classes, attributes, the
// tree, click listeners, events dispatched on the document) and nothing of layout: every box
// is empty, no media query matches, nothing scrolls. Wall time is the test's: animation frames
// and performance.now() move only when the test says. A module that needs more fails loudly
// (a missing method is a TypeError), so a gap shows as a test error, never as a silent pass.
//
// installFakeDom() replaces the globals (node --test runs each test file in its own process).

/** A class list or a `for` list: the names in it. */
class FakeTokens extends Set<string> {
  contains(name: string): boolean {
    return this.has(name);
  }
  remove(...names: string[]): void {
    for (const n of names) this.delete(n);
  }
  toggle(name: string, on = !this.has(name)): boolean {
    if (on) this.add(name);
    else this.delete(name);
    return on;
  }
}

type Listener = (e: Event) => void;

/** An element's inline style: the custom properties a module sets (--panel-below) and reads back. */
class FakeStyle {
  private readonly props = new Map<string, string>();
  getPropertyValue(name: string): string {
    return this.props.get(name) ?? "";
  }
  setProperty(name: string, value: string): void {
    this.props.set(name, value);
  }
}

/** An element (or a text node, or a fragment): what the page's modules set and tests read back. */
export class FakeElement {
  id = "";
  hidden = false;
  disabled = false;
  textContent = "";
  title = "";
  readonly dataset: Record<string, string> = {};
  readonly style = new FakeStyle();
  readonly classList = new FakeTokens();
  readonly htmlFor = new FakeTokens();
  readonly children: FakeElement[] = [];
  parentElement: FakeElement | null = null;
  /** Part of the page skeleton (always in the document), not made by a module. */
  skeleton = false;
  isContentEditable = false;
  offsetHeight = 0;
  scrollHeight = 0;
  clientHeight = 0;
  scrollTop = 0;
  private readonly attributes = new Map<string, string>();
  private readonly listeners = new Map<string, Listener[]>();

  constructor(readonly tagName: string) {}

  /** In the document: in the skeleton or under an element that is. */
  get isConnected(): boolean {
    return this.skeleton || (this.parentElement?.isConnected ?? false);
  }
  append(...nodes: (FakeElement | string)[]): void {
    for (const n of nodes) {
      const child = typeof n === "string" ? text(n) : n;
      // A fragment hands over its children, as in a browser.
      if (child.tagName === "#fragment") this.append(...child.children.splice(0));
      else {
        child.parentElement = this;
        this.children.push(child);
      }
    }
  }
  appendChild(n: FakeElement): FakeElement {
    this.append(n);
    return n;
  }
  replaceChildren(...nodes: (FakeElement | string)[]): void {
    for (const c of this.children.splice(0)) c.parentElement = null;
    this.append(...nodes);
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  addEventListener(type: string, fn: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  dispatchEvent(e: Event): boolean {
    for (const fn of this.listeners.get(e.type) ?? []) fn(e);
    return true;
  }
  /** A click, as on a button: the listeners run unless it is disabled. */
  click(): void {
    if (!this.disabled) this.dispatchEvent(new Event("click"));
  }
  /** The element's own text and its descendants', as textContent reads in a browser. */
  get text(): string {
    return this.textContent + this.children.map((c) => c.text).join("");
  }
  /** Every element under this one, depth first. */
  *descendants(): Generator<FakeElement> {
    for (const c of this.children) {
      yield c;
      yield* c.descendants();
    }
  }
  /** No selector engine: a lookup by selector finds nothing. */
  querySelectorAll(): FakeElement[] {
    return [];
  }
  getBoundingClientRect(): DOMRect {
    return { top: 0, bottom: 0, left: 0, right: 0, width: 0, height: 0, x: 0, y: 0, toJSON: () => ({}) };
  }
  scrollIntoView(): void {}
}

function text(s: string): FakeElement {
  return Object.assign(new FakeElement("#text"), { textContent: s });
}

/**
 * The document. Its skeleton holds every id looked up that no element in the document
 * carries (made on first lookup): the page's HTML is not loaded, and a module only looks up
 * ids the skeleton has.
 */
export class FakeDocument extends FakeElement {
  readonly body = Object.assign(new FakeElement("BODY"), { skeleton: true });
  private readonly skeletonById = new Map<string, FakeElement>();
  /** Every event dispatched on the document, in order. */
  readonly dispatched: Event[] = [];

  constructor() {
    super("#document");
  }
  getElementById(id: string): FakeElement {
    for (const root of [this.body, ...this.skeletonById.values()]) {
      if (root.id === id) return root;
      for (const e of root.descendants()) if (e.id === id) return e;
    }
    const e = Object.assign(new FakeElement("DIV"), { id, skeleton: true });
    this.skeletonById.set(id, e);
    return e;
  }
  createElement(tag: string): FakeElement {
    return new FakeElement(tag.toUpperCase());
  }
  createTextNode(s: string): FakeElement {
    return text(s);
  }
  createDocumentFragment(): FakeElement {
    return new FakeElement("#fragment");
  }
  override dispatchEvent(e: Event): boolean {
    this.dispatched.push(e);
    return super.dispatchEvent(e);
  }
}

/** The fake page: its document and its wall clock. */
export interface FakePage {
  document: FakeDocument;
  /** Wall time, in ms: what performance.now() says. */
  now(): number;
  /** Lets ms of wall time pass, then runs what requestAnimationFrame queued, as one animation frame. */
  animationFrame(ms: number): void;
}

/**
 * Installs a fresh fake DOM as the globals a page module reads: document, window (the global
 * object, as in a browser), location and history (a fragment the page replaces), a wall clock
 * (performance.now(), animation frames) the test moves, and the layout APIs, inert:
 * ResizeObserver never calls back, matchMedia matches nothing. localStorage is left out: the
 * pages reach it through a store that never throws (web/ts/lesson/progress.ts), which then
 * remembers nothing.
 */
export function installFakeDom(): FakePage {
  const document = new FakeDocument();
  const window = new FakeElement("#window");
  const location = { hash: "", pathname: "/", search: "" };
  let wall = 1000;
  let queued: FrameRequestCallback[] = [];
  Object.assign(globalThis, {
    document,
    window: globalThis,
    addEventListener: window.addEventListener.bind(window),
    location,
    history: {
      state: null,
      replaceState(_state: unknown, _unused: string, url: string) {
        location.hash = url.includes("#") ? url.slice(url.indexOf("#")) : "";
      },
    },
    performance: { now: () => wall },
    requestAnimationFrame(cb: FrameRequestCallback): number {
      queued.push(cb);
      return queued.length;
    },
    ResizeObserver: class {
      observe(): void {}
    },
    matchMedia: () => ({ matches: false }),
    getComputedStyle: () => ({ overflowY: "visible" }),
    innerHeight: 800,
    scrollBy: () => {},
  });
  return {
    document,
    now: () => wall,
    animationFrame(ms: number) {
      wall += ms;
      const due = queued;
      queued = [];
      for (const cb of due) cb(wall);
    },
  };
}
