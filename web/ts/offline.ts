// Registers the service worker (sw.ts) when the page says the build has one: a release build
// does (<meta name="kraftlab-offline" content="sw.js">); `make run`'s does not, so that an
// edit shows on the next reload instead of after the old build's pages close.

/**
 * Registers the site's service worker, if the build has one. Call it once the page is
 * interactive: its install downloads every file of the site, which must not compete with the
 * page's own start (the wasm above all) on a slow network.
 */
export function registerOffline(): void {
  const script = document.querySelector<HTMLMetaElement>('meta[name="kraftlab-offline"]')?.content;
  if (!script || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(script).catch(() => {
    // Private modes and some hosts refuse service workers: the page works, only not offline.
  });
}
