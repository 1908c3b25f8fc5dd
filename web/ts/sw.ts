// The service worker (sw.js, written by the release build only): it makes a visited site work
// offline, and a second visit start from disk. A talk in a hall with no Wi-Fi must still run.
//
// web/build bundles this file with the build's file list (PRECACHE) and a hash of all their
// bytes (BUILD), so that every build has its own sw.js and its own cache. On install it stores
// every file of that build (the three pages, their scripts, styles and both wasm programs); it
// then answers each request for one of them from that cache, and anything else from the
// network. The files in a cache all come from one build, so a page never mixes a new script
// with an old wasm. A new build's worker installs in the background and takes over only when
// no page of the old one is open (no skipWaiting): a page keeps the build it started with.
// Registered by the playground (offline.ts) when the page carries <meta name="kraftlab-offline">.

export {}; // a module: its declarations below stay out of the page scripts' global scope

declare const PRECACHE: string[];
declare const BUILD: string;

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(r: Response | Promise<Response>): void;
}
declare const self: {
  location: Location;
  addEventListener(type: "install" | "activate", f: (e: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", f: (e: FetchEvent) => void): void;
};

const CACHE = `kraftlab-${BUILD}`;
const scope = new URL("./", self.location.href);

self.addEventListener("install", (e) => {
  // "no-cache": revalidate with the server, so the cache holds this build's bytes and not an
  // older copy from the HTTP cache (an unchanged file costs a 304).
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(PRECACHE.map((f) => new Request(new URL(f, scope), { cache: "no-cache" })))));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k.startsWith("kraftlab-") && k !== CACHE).map((k) => caches.delete(k)))));
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  let name = url.pathname.slice(scope.pathname.length);
  if (name === "" || name.endsWith("/")) name += "index.html";
  if (!PRECACHE.includes(name)) return; // source maps and the like: the network's
  // The query (worker.js?wasm=lab) picks what a file does, not which file it is. A worker's
  // location is its response's URL, so a hit for a URL with a query is answered as a new
  // response, which takes the request's URL: the lab's worker must still read ?wasm=lab.
  e.respondWith(
    caches
      .open(CACHE)
      .then((c) => c.match(new URL(name, scope).href))
      .then((hit) => (hit ? (url.search ? new Response(hit.body, hit) : hit) : fetch(req))),
  );
});
