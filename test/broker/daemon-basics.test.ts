import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

describe("broker daemon: running tools", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      tools: {
        echo: { binary: "/bin/echo" },
        sh: { binary: "/bin/sh" },
        cat: { binary: "/bin/cat" },
      },
    });
  });
  afterAll(async () => h.close());

  it("runs a tool and streams its output, done without exit_code on success", async () => {
    const r = await h.run({ tool: "echo", args: ["hello", "world"], cwd: "/" });
    expect(r.result).toEqual({ kind: "done", exitCode: 0, timeout: false });
    expect(r.stdout.toString()).toBe("hello world\n");
  });

  it("reports a non-zero exit code and stderr", async () => {
    const r = await h.run({ tool: "sh", args: ["-c", "echo oops >&2; exit 3"], cwd: "/" });
    expect(r.result).toEqual({ kind: "done", exitCode: 3, timeout: false });
    expect(r.stderr.toString()).toBe("oops\n");
  });

  it("streams stdin to the tool", async () => {
    const r = await h.run({ tool: "cat", args: [], cwd: "/" }, "from stdin\n");
    expect(r.stdout.toString()).toBe("from stdin\n");
  });
});
