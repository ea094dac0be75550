import type { Context, MiddlewareHandler } from "hono";
import { CSRF_HEADER, SESSION_COOKIE, cookieValue, isAllowedHost, isAllowedOrigin, type ConsoleAccess } from "./console-access.js";

/**
 * No inline script or style, no eval, nothing from elsewhere: the page's own stylesheet and
 * script only. `form-action` and `base-uri` close the two ways markup can send data off without
 * script; `frame-ancestors` stops clickjacking.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "no-referrer"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Cache-Control", "no-store"],
];

/** Why a request was refused: for the console's log; the peer hears only "forbidden". */
export type Refusal = "host" | "login-token" | "no-session" | "origin" | "csrf" | "method";

/**
 * Every request: a Host naming this console on loopback (DNS rebinding), then the session cookie
 * (or, at /login, the one-time token, exchanged for the cookie); every state-changing request also
 * an allowed Origin and the CSRF header. The headers above go on every answer, refusals included.
 */
export function consoleSecurity(access: ConsoleAccess, port: () => number, onRefused: (why: Refusal, c: Context) => void): MiddlewareHandler {
  return async (c, next) => {
    const refuse = (why: Refusal): Response => {
      onRefused(why, c);
      return withHeaders(c.text("forbidden", 403));
    };
    if (!isAllowedHost(c.req.header("host"), port())) return refuse("host");
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD" && method !== "POST") return refuse("method");
    if (c.req.path === "/login") {
      if (method !== "GET") return refuse("method");
      // The printed URL opened again in the browser that already logged in: it has its session.
      if (access.hasSession(cookieValue(c.req.header("cookie"), SESSION_COOKIE))) return withHeaders(c.redirect("/approvals", 303));
      if (!access.exchange(c.req.query("token") ?? "")) return refuse("login-token");
      const response = c.redirect("/approvals", 303);
      response.headers.append("Set-Cookie", `${SESSION_COOKIE}=${access.sessionSecret}; HttpOnly; SameSite=Strict; Path=/`);
      return withHeaders(response);
    }
    if (!access.hasSession(cookieValue(c.req.header("cookie"), SESSION_COOKIE))) return refuse("no-session");
    if (method === "POST") {
      if (!isAllowedOrigin(c.req.header("origin"), port())) return refuse("origin");
      if (!access.hasCsrf(c.req.header(CSRF_HEADER))) return refuse("csrf");
    }
    await next();
    c.res = withHeaders(c.res);
  };
}

function withHeaders(response: Response): Response {
  // A response built by a helper may have immutable headers; a copy always takes them.
  const copy = new Response(response.body, response);
  for (const [name, value] of SECURITY_HEADERS) copy.headers.set(name, value);
  return copy;
}
