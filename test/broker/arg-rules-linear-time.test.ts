import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedRequestLine } from "../../src/broker/broker-client.js";
import { type Harness, runCall, startHarness } from "./harness.js";

// A rule cannot freeze the daemon: measured through a real daemon on a real socket (kept apart from
// go-patterns.test.ts, whose rule table needs no daemon).
describe("argument rules: linear time on adversarial input", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      tools: {
        curl: { binary: "/bin/true", blocked_args: [{ pattern: "(?i)api.*-X\\s*DELETE", match: "command", message: "no deletes" }] },
        echo: { binary: "/bin/echo" },
      },
    });
  });
  afterAll(async () => h.close());

  it("a 40,000-argument request against a backtracking-prone rule leaves a request signed before it still fresh after it", async () => {
    const args = Array.from({ length: 40_000 }, () => "api");
    // Signed now, sent only once the big request has been answered: a daemon whose event loop the rule
    // froze (a backtracking engine took about 19 s on this input) would find it older than the 5 s
    // freshness window and refuse it; a linear engine checks the big request in milliseconds.
    const small = signedRequestLine(h.secret, { tool: "echo", args: ["served"], cwd: "/" });
    const big = await runCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "curl", args, cwd: "/" }));
    expect(big.result).toEqual({ kind: "done", exitCode: 0, timeout: false });
    const after = await runCall(h.daemon.socketPath, small);
    expect(after.result).toEqual({ kind: "done", exitCode: 0, timeout: false });
    expect(after.stdout.toString()).toBe("served\n");
    const blocked = await runCall(h.daemon.socketPath, signedRequestLine(h.secret, { tool: "curl", args: [...args, "-X", "DELETE"], cwd: "/" }));
    expect(blocked.result).toEqual({ kind: "error", message: "blocked: no deletes" });
  });
});
