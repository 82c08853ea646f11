/**
 * The rate-limit windows are fixed minutes of the clock: a test that counts one budget and could
 * cross into the next minute (whose budget is fresh) waits for that minute to begin first.
 */
export async function awayFromMinuteEdge(needMs = 15_000) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
