import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openLedger, scanLog } from "../../src/ledger/index.js";
import { SigRuntime } from "../../src/sig/runtime.js";
import { signFile } from "../../src/sig/sign-file.js";
import { fixedClock, ProjectFixture, SOUL_POLICY_CONFIG } from "./project-fixture.js";

let fixture: ProjectFixture;
let ledgerDir: string;

beforeEach(() => {
  fixture = new ProjectFixture();
  ledgerDir = mkdtempSync(join(tmpdir(), "provenant-sig-ledger-"));
  fixture.config(SOUL_POLICY_CONFIG);
  fixture.write("llm/prompts/identity.txt", "You are {{ name }}.\n");
  fixture.write("soul.md", "original soul content\n");
  signFile(fixture.context(), "llm/prompts/identity.txt", { identity: "openclaw" });
});
afterEach(() => {
  fixture.remove();
  rmSync(ledgerDir, { recursive: true, force: true });
});

describe("signing events in the tamper-evident ledger", () => {
  it("records init, verification, denial and update as verifiable ledger entries", () => {
    const path = join(ledgerDir, "ledger.jsonl");
    const ledger = openLedger(path, { fsync: "never" });
    const rt = new SigRuntime({ projectRoot: fixture.root, config: { enforceVerification: true }, clock: fixedClock(), audit: ledger });
    rt.initWorkspace();
    rt.beginTurn("s1", { senderIsOwner: true });
    const id = rt.ingestOwnerMessage({ sessionId: "s1", channel: "telegram", messageId: "9", text: "update my soul", identity: "owner:1:telegram" });
    rt.verify("s1", {});
    rt.updateAndSign("s1", { file: "soul.md", content: "new soul\n", reason: "asked", sourceType: "signed_message", sourceId: "s1:telegram:nope" });
    rt.updateAndSign("s1", { file: "soul.md", content: "new soul\n", reason: "asked", sourceType: "signed_message", sourceId: id });
    ledger.close();

    const scan = scanLog(path);
    expect(scan.fault).toBeUndefined();
    const events = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.data.source === "sig")
      .map((e) => [e.type, e.data.event, e.data.file]);
    expect(events).toEqual([
      ["CLAIM", "sign", "soul.md"],
      ["VERIFY", "verify", "llm/prompts/identity.txt"],
      ["VERIFY", "verify", "soul.md"],
      ["VERIFY", "update_denied", "soul.md"],
      ["CLAIM", "update", "soul.md"],
    ]);

    // Rewriting a signing event afterwards breaks the ledger's chain.
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace('"identity":"owner:1:telegram"', '"identity":"owner:2:telegram"'));
    expect(scanLog(path).fault).toBeDefined();
  });
});
