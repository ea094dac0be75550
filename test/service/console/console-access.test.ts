import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConsoleAccess, cookieValue, isAllowedHost, isAllowedOrigin, secretEquals } from "../../../src/service/console/console-access.js";

describe("console access", () => {
  it("exchanges the login token exactly once, and nothing else", () => {
    const access = new ConsoleAccess();
    const token = access.loginToken ?? "";
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(access.exchange(token.slice(0, 63))).toBe(false);
    expect(access.exchange(`${token}0`)).toBe(false);
    expect(access.exchange(token.toUpperCase())).toBe(false);
    expect(access.exchange(token)).toBe(true);
    expect(access.loginToken).toBeNull();
    expect(access.exchange(token)).toBe(false);
  });

  it("keeps three independent secrets", () => {
    const access = new ConsoleAccess();
    const secrets = new Set([access.loginToken, access.sessionSecret, access.csrfToken]);
    expect(secrets.size).toBe(3);
    expect(access.hasSession(access.csrfToken)).toBe(false);
    expect(access.hasCsrf(access.sessionSecret)).toBe(false);
    expect(access.hasSession(undefined)).toBe(false);
    expect(access.hasCsrf(undefined)).toBe(false);
  });

  it("secretEquals is equality, for any two strings", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(secretEquals(a, b)).toBe(a === b);
        expect(secretEquals(a, a)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts only loopback names with this port as Host", () => {
    expect(isAllowedHost("127.0.0.1:8080", 8080)).toBe(true);
    expect(isAllowedHost("localhost:8080", 8080)).toBe(true);
    expect(isAllowedHost("[::1]:8080", 8080)).toBe(true);
    for (const host of [undefined, "", "127.0.0.1", "127.0.0.1:8081", "LOCALHOST:8080x", "evil.example:8080", "127.0.0.1.nip.io:8080", "0.0.0.0:8080", "[::ffff:127.0.0.1]:8080"]) {
      expect(isAllowedHost(host, 8080), String(host)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 65535 }), (host, port) => {
        const ok = isAllowedHost(host, port);
        expect(ok).toBe([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host));
      }),
    );
  });

  it("accepts only the console's own origins, and no missing one", () => {
    expect(isAllowedOrigin("http://127.0.0.1:9", 9)).toBe(true);
    for (const origin of [undefined, "null", "", "http://127.0.0.1:10", "https://127.0.0.1:9", "http://evil.example", "http://127.0.0.1:9/"]) {
      expect(isAllowedOrigin(origin, 9), String(origin)).toBe(false);
    }
  });

  it("reads one cookie; a duplicate of ours (one planted to shadow it) counts as none", () => {
    expect(cookieValue("a=1; provenant_console=abc; b=2", "provenant_console")).toBe("abc");
    expect(cookieValue("provenant_console=abc; provenant_console=def", "provenant_console")).toBeUndefined();
    expect(cookieValue("xprovenant_console=abc", "provenant_console")).toBeUndefined();
    expect(cookieValue(undefined, "provenant_console")).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (header) => {
        const v = cookieValue(header, "provenant_console");
        if (v !== undefined) expect(header).toContain(v);
      }),
    );
  });
});
