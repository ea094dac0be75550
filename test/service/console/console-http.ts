import { request } from "node:http";

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** A request with exactly the headers given (Host and Origin included), as an attacker's client sends it. */
export function rawRequest(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time (agent: false): a pooled one the server's keep-alive timeout is closing would reset.
    const req = request({ agent: false, host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Logs in with the one-time token; returns the cookie header value and the page's CSRF token. */
export async function login(port: number, loginUrl: string): Promise<{ cookie: string; csrf: string }> {
  const url = new URL(loginUrl);
  const res = await rawRequest(port, { path: `${url.pathname}${url.search}` });
  const setCookie = res.headers["set-cookie"];
  const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(";")[0];
  if (res.status !== 303 || cookie === undefined) throw new Error(`login failed: ${res.status}`);
  const page = await rawRequest(port, { path: "/sessions", headers: { cookie } });
  const csrf = /name="provenant-csrf" content="([0-9a-f]{64})"/.exec(page.body)?.[1];
  if (csrf === undefined) throw new Error("no CSRF token in the page");
  return { cookie, csrf };
}
