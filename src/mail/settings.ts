/**
 * @module mail/settings
 * Reads `EARSHOT_SMTP_URL` (DESIGN §15) into the options of an SMTP connection: `smtp://` talks
 * plain SMTP and upgrades with STARTTLS whenever the server offers it (`?starttls=required`
 * refuses to send over a server that does not), `smtps://` is TLS from the first byte (port 465
 * by default). Credentials are the URL's user and password, percent-decoded. Knows no feature.
 */

/** An SMTP connection as the transport needs it. */
export type SmtpSettings = {
  host: string;
  /** 587 for `smtp://`, 465 for `smtps://` unless the URL names one. */
  port: number;
  /** True for `smtps://` (implicit TLS). */
  secure: boolean;
  /** `smtp://` only: refuse to send unless STARTTLS succeeds. */
  requireTls: boolean;
  auth: { user: string; pass: string } | null;
};

/** Query parameters the URL may carry, and what each accepts. */
const QUERY: Record<string, readonly string[]> = { starttls: ["required", "opportunistic"] };

/**
 * Parses an SMTP URL. Error messages never repeat the URL (it may hold a password).
 * @throws Error naming what is wrong: the scheme, a missing host, a bad port, an unknown parameter
 */
export function parseSmtpUrl(value: string): SmtpSettings {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error("not a URL (expected smtp://[user:password@]host[:port] or smtps://…)");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new Error(`the scheme must be smtp:// or smtps://, not ${url.protocol}//`);
  if (!url.hostname) throw new Error("the URL names no host");
  const secure = url.protocol === "smtps:";
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  if (url.pathname && url.pathname !== "/") throw new Error("the URL takes no path");
  for (const [key, v] of url.searchParams) {
    const allowed = QUERY[key];
    if (!allowed) throw new Error(`unknown parameter ${key} (known: ${Object.keys(QUERY).join(", ")})`);
    if (!allowed.includes(v)) throw new Error(`${key} must be one of ${allowed.join(", ")}`);
  }
  const requireTls = url.searchParams.get("starttls") === "required";
  if (secure && url.searchParams.has("starttls")) throw new Error("starttls applies to smtp:// only (smtps:// is TLS from the start)");
  let auth: SmtpSettings["auth"] = null;
  if (url.username || url.password) {
    try {
      auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
    } catch {
      throw new Error("the user or password is not valid percent-encoding");
    }
  }
  // WHATWG URL keeps the brackets of an IPv6 host; the socket wants the bare address.
  return { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port, secure, requireTls, auth };
}

/** A bare address `local@domain`, optionally as `Name <local@domain>`: what `EARSHOT_MAIL_FROM` accepts. */
const FROM = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

/**
 * Checks `EARSHOT_MAIL_FROM`. @returns null when it is usable, else why not
 */
export function mailFromProblem(value: string): string | null {
  return FROM.test(value.trim()) ? null : 'expected an address such as earshot@example.com or "Earshot <earshot@example.com>"';
}
