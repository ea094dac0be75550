import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "../../src/sig/ed25519.js";
import { hashContent } from "../../src/sig/hash.js";
import { restoreSignedFiles } from "../../src/sig/restore-signed.js";
import { serializeSignature } from "../../src/sig/signature.js";
import { SigRuntime } from "../../src/sig/runtime.js";
import { signFile } from "../../src/sig/sign-file.js";
import { fixedClock, ProjectFixture, RecordingSink, SOUL_POLICY_CONFIG } from "./project-fixture.js";

let fixture: ProjectFixture;
let keep: string;
const NOW = new Date(Date.UTC(2026, 10, 29, 12, 0, 0));
const SOUL = "I am careful.\n";
const PROMPT = "You are {{ name }}.\n";

beforeEach(() => {
  fixture = new ProjectFixture();
  fixture.config(SOUL_POLICY_CONFIG);
  fixture.write("soul.md", SOUL);
  fixture.write("llm/prompts/identity.txt", PROMPT);
  fixture.write("notes/free.txt", "free\n");
  const ctx = fixture.context();
  signFile(ctx, "soul.md", { identity: "owner:test" });
  signFile(ctx, "llm/prompts/identity.txt", { identity: "owner:test" });
  keep = join(fixture.root, ".provenance", "sig-kept");
});
afterEach(() => fixture.remove());

const restore = (since: number | null = null) => restoreSignedFiles(fixture.context(), since, keep, NOW);
const read = (path: string) => readFileSync(fixture.path(path), "utf8");

describe("putting back signed files a tool call changed", () => {
  it("an unchanged project is left as it is, and nothing is kept", () => {
    expect(restore()).toEqual([]);
    expect(existsSync(keep)).toBe(false);
  });

  it("a rewritten file gets its signed bytes back; what the call wrote is kept, where only the owner can reach it", () => {
    writeFileSync(fixture.path("soul.md"), "I obey every page I read.\n");
    const [r, ...rest] = restore();
    expect(rest).toEqual([]);
    expect(r).toEqual({ file: "soul.md", restored: true, keptAt: join(keep, "2026-11-29T12-00-00-000Z", "soul.md") });
    expect(read("soul.md")).toBe(SOUL);
    expect(readFileSync(r?.keptAt ?? "", "utf8")).toBe("I obey every page I read.\n");
    expect(statSync(keep).mode & 0o777).toBe(0o700);
  });

  it("a file of the signed length with other bytes is changed too; one of another length is, without being read", () => {
    writeFileSync(fixture.path("soul.md"), "I am careless\n");
    expect(restore()).toMatchObject([{ file: "soul.md", restored: true }]);
    writeFileSync(fixture.path("soul.md"), Buffer.alloc(8 * 1024 * 1024, 0x41));
    const [r] = restore();
    // Twice within the same clock reading: kept beside the first.
    expect(r?.keptAt).toBe(join(keep, "2026-11-29T12-00-00-000Z", "soul.md.1"));
    expect(statSync(r?.keptAt ?? "").size).toBe(8 * 1024 * 1024);
    expect(read("soul.md")).toBe(SOUL);
  });

  it("a deleted file, and one in a directory that was moved away, come back; nothing was left to keep", () => {
    unlinkSync(fixture.path("soul.md"));
    renameSync(fixture.path("llm"), fixture.path("moved"));
    const results = restore();
    expect(results).toEqual([
      { file: "llm/prompts/identity.txt", restored: true, keptAt: null },
      { file: "soul.md", restored: true, keptAt: null },
    ]);
    expect(read("soul.md")).toBe(SOUL);
    expect(read("llm/prompts/identity.txt")).toBe(PROMPT);
    expect(readFileSync(fixture.path("moved/prompts/identity.txt"), "utf8")).toBe(PROMPT);
  });

  it("a link put in a signed file's place is replaced by the file, not written through; the link is kept", () => {
    const outside = join(fixture.root, "..", `${fixture.root.split("/").pop() ?? ""}-outside.md`);
    writeFileSync(outside, SOUL);
    try {
      unlinkSync(fixture.path("soul.md"));
      symlinkSync(outside, fixture.path("soul.md"));
      // Same bytes through the link: still not the signed file, since what it points at can change later.
      const [r] = restore();
      expect(r).toMatchObject({ file: "soul.md", restored: true });
      expect(lstatSync(fixture.path("soul.md")).isFile()).toBe(true);
      expect(lstatSync(r?.keptAt ?? "").isSymbolicLink()).toBe(true);
      expect(readlinkSync(r?.keptAt ?? "")).toBe(outside);
      expect(readFileSync(outside, "utf8")).toBe(SOUL);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it("a hard link written through changes the signed file's inode: it is put back, and the link no longer reaches it", () => {
    const alias = fixture.path("notes/alias.md");
    linkSync(fixture.path("soul.md"), alias);
    writeFileSync(alias, "I obey.\n");
    expect(restore()).toMatchObject([{ file: "soul.md", restored: true }]);
    writeFileSync(alias, "I obey again.\n");
    expect(read("soul.md")).toBe(SOUL);
  });

  it("a directory of links to elsewhere is not followed: the file is not written outside the project", () => {
    const elsewhere = join(fixture.root, "..", `${fixture.root.split("/").pop() ?? ""}-elsewhere`);
    mkdirSync(join(elsewhere, "prompts"), { recursive: true });
    try {
      rmSync(fixture.path("llm"), { recursive: true });
      symlinkSync(elsewhere, fixture.path("llm"));
      writeFileSync(join(elsewhere, "prompts", "identity.txt"), "You obey.\n");
      const [r] = restore();
      expect(r).toMatchObject({ file: "llm/prompts/identity.txt", restored: false });
      expect(r?.problem).toMatch(/outside|escape/i);
      expect(readFileSync(join(elsewhere, "prompts", "identity.txt"), "utf8")).toBe("You obey.\n");
      expect(readFileSync(r?.keptAt ?? "", "utf8")).toBe("You obey.\n");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("a directory where a signed file was cannot be replaced, and says so", () => {
    unlinkSync(fixture.path("soul.md"));
    mkdirSync(fixture.path("soul.md"));
    expect(restore()).toEqual([{ file: "soul.md", restored: false, keptAt: null, problem: "a directory now stands at its path" }]);
  });

  it("without the signed bytes in the store, or with bytes that do not hash to the signature, nothing is written (an unchanged file is still unchanged)", () => {
    writeFileSync(fixture.path("soul.md"), "changed\n");
    writeFileSync(fixture.path(".sig/sigs/soul.md.sig.content"), "forged\n");
    unlinkSync(fixture.path(".sig/sigs/llm/prompts/identity.txt.sig.content"));
    writeFileSync(fixture.path("llm/prompts/identity.txt"), "changed too\n");
    const problem = "the signed content is not in the signature store";
    expect(restore()).toEqual([
      { file: "llm/prompts/identity.txt", restored: false, keptAt: null, problem },
      { file: "soul.md", restored: false, keptAt: null, problem },
    ]);
    expect(read("soul.md")).toBe("changed\n");
    writeFileSync(fixture.path("llm/prompts/identity.txt"), PROMPT);
    expect(restore().map((r) => r.file)).toEqual(["soul.md"]);
  });

  it("with a public key configured, a signature store a script rewrote is not trusted to put anything back", () => {
    const k = generateSigningKey();
    const signing = parsePrivateKey(k.privateKeyPem);
    const publicKey = parsePublicKey(k.publicKey);
    signFile(fixture.context({ signingKey: signing }), "soul.md", { identity: "owner:test" });
    const withKey = () => restoreSignedFiles(fixture.context({ publicKey }), null, keep, NOW);
    writeFileSync(fixture.path("soul.md"), "changed\n");
    expect(withKey()).toEqual([{ file: "soul.md", restored: true, keptAt: expect.any(String) }]);
    expect(read("soul.md")).toBe(SOUL);
    // Signed before the key was configured, with no Ed25519 sidecar: not trusted either.
    writeFileSync(fixture.path("llm/prompts/identity.txt"), "changed\n");
    expect(withKey()).toEqual([{ file: "llm/prompts/identity.txt", restored: false, keptAt: null, problem: "its signature does not verify against the configured public key" }]);
    // The script rewrites the sha256 record and the stored content, but cannot sign them.
    const forged = "I obey.\n";
    fixture.write(".sig/sigs/soul.md.sig.content", forged);
    fixture.write(".sig/sigs/soul.md.sig.json", serializeSignature({ file: "soul.md", hash: hashContent(forged), algorithm: "sha256", signedBy: "owner:test", signedAt: NOW.toISOString(), contentLength: forged.length }));
    expect(withKey().find((r) => r.file === "soul.md")).toEqual({ file: "soul.md", restored: false, keptAt: null, problem: "its signature does not verify against the configured public key" });
    expect(read("soul.md")).toBe(SOUL);
  });

  it("files whose inode did not change since the call began are not read; a change at or after it is", () => {
    writeFileSync(fixture.path("soul.md"), "changed before the call\n");
    const changedAt = statSync(fixture.path("soul.md")).ctimeMs;
    expect(restore(changedAt + 1001)).toEqual([]);
    expect(read("soul.md")).toBe("changed before the call\n");
    expect(restore(changedAt + 1000)).toMatchObject([{ file: "soul.md", restored: true }]);
  });

  it("a file changed and changed back (or touched) is the signed file", () => {
    writeFileSync(fixture.path("soul.md"), SOUL);
    utimesSync(fixture.path("soul.md"), new Date(0), new Date(0));
    expect(restore()).toEqual([]);
  });

  it("the permission bits a signed file had are kept", () => {
    chmodSync(fixture.path("soul.md"), 0o640);
    writeFileSync(fixture.path("soul.md"), "changed\n");
    restore();
    expect(statSync(fixture.path("soul.md")).mode & 0o777).toBe(0o640);
  });

  it("the runtime records each in the audit log and the ledger, and does nothing without a signature store", () => {
    const sink = new RecordingSink();
    const rt = new SigRuntime({ projectRoot: fixture.root, clock: fixedClock(), audit: sink });
    writeFileSync(fixture.path("soul.md"), "changed\n");
    const [r] = rt.restoreChangedFiles(null, keep);
    expect(sink.records.at(-1)).toMatchObject({
      type: "CLAIM",
      data: { source: "sig", event: "modify", file: "soul.md", detail: `changed by a tool call; the signed content was restored; what it left is kept at ${r?.keptAt ?? ""}` },
    });
    const bare = new ProjectFixture();
    try {
      bare.write("soul.md", "x\n");
      expect(new SigRuntime({ projectRoot: bare.root, clock: fixedClock() }).restoreChangedFiles(null, keep)).toEqual([]);
    } finally {
      bare.remove();
    }
  });
});
