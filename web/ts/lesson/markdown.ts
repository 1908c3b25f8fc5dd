// A tiny Markdown subset for lesson text: paragraphs, bullet and numbered lists, fenced code
// blocks, and inline *emphasis*, **strong**, `code`, [links](https://…) and model figures,
// {model: 120 s} (docs/lessons.md: a figure from the model's assumptions, not from Kafka). The lessons are our
// own files, but nothing here ever goes through innerHTML: parse() builds a small tree of plain
// data (testable under Node) and render() turns it into DOM nodes with textContent, so any
// HTML in a lesson shows as text. Links are kept only for http(s) URLs and open in a new tab.

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "em" | "strong"; children: Inline[] }
  | { kind: "code"; text: string }
  | { kind: "model"; text: string }
  | { kind: "link"; href: string; children: Inline[] };

export type Block =
  | { kind: "p"; children: Inline[] }
  | { kind: "ul" | "ol"; items: Inline[][] }
  | { kind: "pre"; text: string };

/** Only web links survive: a javascript: or data: URL in a lesson becomes plain text. */
export function safeHref(href: string): string | undefined {
  return /^https?:\/\/[^\s]+$/i.test(href) ? href : undefined;
}

/** Opens a figure from the model's assumptions (lessons.ModelMark in Go). */
export const MODEL_MARK = "{model:";

/** What a model figure's tag says on hover and to a screen reader, the same everywhere. */
export const MODEL_TITLE = "A figure from this model's assumptions, not from Kafka's code or defaults";

/**
 * A model figure as every lesson and talk draws it: the figure, then a small "model" tag. The
 * tag is text, so it reads out and survives a copy.
 */
export function modelFigure(text: string): HTMLElement {
  const span = Object.assign(document.createElement("span"), { className: "model-figure", title: MODEL_TITLE });
  // The tag is the Configs panel's "model" source badge, so a model figure looks the same everywhere.
  span.append(text, Object.assign(document.createElement("span"), { className: "badge source source-model model-tag", textContent: "model" }));
  return span;
}

/** Parses inline Markdown. Unclosed markers stay as text. */
export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = "";
  const flush = () => {
    if (text) out.push({ kind: "text", text });
    text = "";
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === "{" && src.startsWith(MODEL_MARK, i)) {
      const end = src.indexOf("}", i);
      const inner = end > i ? src.slice(i + MODEL_MARK.length, end).trim() : "";
      if (inner) {
        flush();
        out.push({ kind: "model", text: inner });
        i = end + 1;
        continue;
      }
    } else if (ch === "`") {
      const end = src.indexOf("`", i + 1);
      if (end > i) {
        flush();
        out.push({ kind: "code", text: src.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    } else if (ch === "*" || ch === "_") {
      const strong = src[i + 1] === ch;
      const marker = strong ? ch + ch : ch;
      const end = src.indexOf(marker, i + marker.length);
      // A marker must hug its text ("2 * 3 * 4" is not emphasis) and an underscore inside a
      // word (leader_epoch) is not one either.
      const inner = end > i ? src.slice(i + marker.length, end) : "";
      const wordy = ch === "_" && ((i > 0 && /\w/.test(src[i - 1])) || /\w/.test(src[end + marker.length] ?? ""));
      if (inner && !/^\s|\s$/.test(inner) && !wordy) {
        flush();
        out.push({ kind: strong ? "strong" : "em", children: parseInline(inner) });
        i = end + marker.length;
        continue;
      }
    } else if (ch === "[") {
      const m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(src.slice(i));
      if (m) {
        flush();
        const href = safeHref(m[2]);
        if (href) out.push({ kind: "link", href, children: parseInline(m[1]) });
        else out.push(...parseInline(m[1]));
        i += m[0].length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

/** Parses block Markdown: blank lines separate paragraphs; "- " and "1. " start list items. */
export function parse(src: string): Block[] {
  const blocks: Block[] = [];
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  let para: string[] = [];
  let list: { kind: "ul" | "ol"; items: string[] } | undefined;
  const endPara = () => {
    if (para.length) blocks.push({ kind: "p", children: parseInline(para.join(" ")) });
    para = [];
  };
  const endList = () => {
    if (list) blocks.push({ kind: list.kind, items: list.items.map(parseInline) });
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(```|~~~)/.test(line)) {
      endPara();
      endList();
      const fence = line.trim().slice(0, 3);
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence); i++) body.push(lines[i]);
      blocks.push({ kind: "pre", text: body.join("\n") });
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d{1,3}[.)]\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      endPara();
      const kind = bullet ? "ul" : "ol";
      if (list && list.kind !== kind) endList();
      list ??= { kind, items: [] };
      list.items.push((bullet ?? numbered)![1]);
      continue;
    }
    if (!line.trim()) {
      endPara();
      endList();
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += " " + line.trim(); // a list item's continuation
      continue;
    }
    endList();
    para.push(line.trim());
  }
  endPara();
  endList();
  return blocks;
}

function renderInline(parent: Node, nodes: Inline[]): void {
  for (const n of nodes) {
    switch (n.kind) {
      case "text":
        parent.appendChild(document.createTextNode(n.text));
        break;
      case "code":
        parent.appendChild(Object.assign(document.createElement("code"), { textContent: n.text }));
        break;
      case "model":
        parent.appendChild(modelFigure(n.text));
        break;
      case "em":
      case "strong": {
        const el = document.createElement(n.kind);
        renderInline(el, n.children);
        parent.appendChild(el);
        break;
      }
      case "link": {
        const a = document.createElement("a");
        a.href = n.href;
        a.target = "_blank";
        a.rel = "noopener noreferrer";
        renderInline(a, n.children);
        parent.appendChild(a);
        break;
      }
    }
  }
}

/** Renders Markdown into a fragment of DOM nodes, without innerHTML. */
export function render(src: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const b of parse(src)) {
    if (b.kind === "p") {
      const p = document.createElement("p");
      renderInline(p, b.children);
      frag.appendChild(p);
    } else if (b.kind === "pre") {
      const pre = document.createElement("pre");
      pre.appendChild(Object.assign(document.createElement("code"), { textContent: b.text }));
      frag.appendChild(pre);
    } else {
      const list = document.createElement(b.kind);
      for (const item of b.items) {
        const li = document.createElement("li");
        renderInline(li, item);
        list.appendChild(li);
      }
      frag.appendChild(list);
    }
  }
  return frag;
}

/** Renders inline Markdown (a task, a hint) into a fragment. */
export function renderLine(src: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  renderInline(frag, parseInline(src));
  return frag;
}
