// The first visit's start card: three ways in (kill the leader of payments-0 and watch, start a
// lesson, open the config lab) above the cluster, or floating at the foot of a phone's screen. It shows on the playground's default cluster
// only (not in a lesson or a shared run), and once dismissed, or once a way in is taken, it is
// remembered in the browser and not shown again.

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

/**
 * Shows the card unless it was dismissed before. killLeader kills the broker leading
 * payments-0; the card closes with any of its ways in, or its × button.
 */
export function showWelcome(killLeader: () => void): void {
  const card = document.getElementById("welcome");
  if (!card || remembered()) return;
  const close = () => {
    card.hidden = true;
    remember();
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
