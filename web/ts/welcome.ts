// The first visit's start card: three ways in (kill the leader of payments-0 and watch, start a
// lesson, open the config lab) above the cluster, or floating at the foot of a phone's screen. It shows on the playground's default cluster
// only (not in a lesson or a shared run), and once dismissed, once a way in is taken or, on a
// phone, once the reader acts on the cluster another way, it is remembered in the browser and
// not shown again.

/** The localStorage key that remembers the card was dismissed. */
const DISMISSED = "kraftlab.welcome.dismissed";

function remembered(): boolean {
  try {
    return localStorage.getItem(DISMISSED) === "1";
  } catch {
    return false; // storage refused (a private window's policy): show it, forget nothing else
  }
}

function remember(): void {
  try {
    localStorage.setItem(DISMISSED, "1");
  } catch {
    // Storage refused: the card closes for this visit only.
  }
}

/** Closes the card where it floats over a phone's page (set by showWelcome while it shows). */
let closeFloating: (() => void) | undefined;

/**
 * The reader acted on the cluster some other way (a key, the canvas's menu, a panel's button):
 * they have found their way in. On a phone the card floats over the page's foot, where the
 * newest events show what the action did, so it closes (and stays closed, as a way in taken
 * closes it). Above the cluster on a wider page it stays: closing it would move the canvas
 * up under the reader's eyes.
 */
export function welcomeActed(): void {
  closeFloating?.();
}

/**
 * Shows the card unless it was dismissed before. killLeader kills the broker leading
 * payments-0; the card closes with any of its ways in, or its × button.
 */
export function showWelcome(killLeader: () => void): void {
  const card = document.getElementById("welcome");
  if (!card || remembered()) return;
  const close = () => {
    card.hidden = true;
    closeFloating = undefined;
    remember();
  };
  closeFloating = () => {
    if (!card.hidden && getComputedStyle(card).position === "fixed") close();
  };
  card.querySelector("#welcome-close")?.addEventListener("click", close);
  card.querySelector("#welcome-kill")?.addEventListener("click", () => {
    close();
    killLeader();
    // What happens next is on the canvas and in the newest events under it: on a small
    // screen they are below the toolbar, so they come up (the canvas's top to the window's).
    const canvas = document.getElementById("cluster-canvas");
    const top = canvas?.getBoundingClientRect().top ?? 0;
    if (canvas && (top < 0 || top > innerHeight / 3)) canvas.scrollIntoView({ block: "start" });
  });
  for (const a of Array.from(card.querySelectorAll("a"))) a.addEventListener("click", close);
  card.hidden = false;
}
