/**
 * @module public-url-hint
 * The start-up hint of issue 26: when the public URL names this machine only (`localhost`,
 * `127.x`, `::1` — the default when EARSHOT_PUBLIC_URL is unset) while the server listens beyond
 * loopback, the public links, QR codes, invite and setup URLs it prints and shows will not work
 * from anywhere else. One warning line says so and names the variable; the console shows the same
 * warning to whoever opens it under another address (web/console/public-url-warning.tsx).
 */

/** True for a host name or address that only reaches this machine. */
function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * The hint to log, or null when none is due.
 * @param publicUrl the configured public URL (EARSHOT_PUBLIC_URL or its default)
 * @param listenHost the address the server binds (EARSHOT_HOST, default `0.0.0.0`)
 */
export function publicUrlHint(publicUrl: string, listenHost: string): string | null {
  if (isLoopbackHost(listenHost)) return null;
  let host: string;
  try {
    host = new URL(publicUrl).hostname;
  } catch {
    return null;
  }
  if (!isLoopbackHost(host)) return null;
  return `links, QR codes and invites point to ${publicUrl}, which only this machine reaches, though Earshot listens on ${listenHost}: set EARSHOT_PUBLIC_URL to the address people use (e.g. https://feedback.example.com)`;
}
