import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The cookie that carries the browser's console session after the one-time token was exchanged. */
export const SESSION_COOKIE = "provenant_console";
/** The header every state-changing request carries (a page from another origin cannot set it). */
export const CSRF_HEADER = "x-provenant-csrf";

/** Names a browser on this machine uses for the console; anything else in Host is a rebinding attempt. */
const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;

/** Equality of two secrets whose time does not depend on where they differ, nor on their lengths. */
export function secretEquals(given: string, expected: string): boolean {
  // Hashing first gives equal-length inputs, so timingSafeEqual neither throws nor leaks the length.
  const a = createHash("sha256").update(given, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/**
 * The console's credentials: a one-time token printed with the URL, exchanged once for a session
 * secret kept in an HttpOnly cookie, and a CSRF token the page sends in a header on every POST.
 * All three are 256 random bits, held in memory only and gone when the console stops.
 */
export class ConsoleAccess {
  private oneTimeToken: string | null;
  readonly sessionSecret: string;
  readonly csrfToken: string;

  constructor(random: (bytes: number) => Buffer = randomBytes) {
    this.oneTimeToken = random(32).toString("hex");
    this.sessionSecret = random(32).toString("hex");
    this.csrfToken = random(32).toString("hex");
  }

  /** The token for the printed URL; null once it has been exchanged. */
  get loginToken(): string | null {
    return this.oneTimeToken;
  }

  /** True (once) for the printed token; every later use of it, and every other value, is refused. */
  exchange(token: string): boolean {
    const expected = this.oneTimeToken;
    if (expected === null || !secretEquals(token, expected)) return false;
    this.oneTimeToken = null;
    return true;
  }

  hasSession(cookieValue: string | undefined): boolean {
    return cookieValue !== undefined && secretEquals(cookieValue, this.sessionSecret);
  }

  hasCsrf(headerValue: string | undefined): boolean {
    return headerValue !== undefined && secretEquals(headerValue, this.csrfToken);
  }
}

/** The origins the console's own pages have: each loopback name with the port it listens on. */
export function allowedOrigins(port: number): readonly string[] {
  return LOOPBACK_HOSTS.map((host) => `http://${host}:${port}`);
}

/** A Host header naming this console on a loopback name; a DNS-rebound name (evil.example) is refused. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  return LOOPBACK_HOSTS.some((name) => host === `${name}:${port}`);
}

/** Origin of a state-changing request: exactly one of the console's own. A missing Origin is refused. */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return false;
  return allowedOrigins(port).includes(origin);
}

/** The value of one cookie from a Cookie header; two of that name (one planted to shadow ours) count as none. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let found: string | undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    if (found !== undefined) return undefined;
    found = part.slice(eq + 1).trim();
  }
  return found;
}
