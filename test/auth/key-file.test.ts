import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KeyFileError, parseKeyFile, serializeKeyFile } from "../../src/auth/key-file-format.js";
import { loadKeyFile, saveKeyFile } from "../../src/auth/key-file.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { seededRandom } from "./helpers.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "provenant-auth-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("key file", () => {
  it("saves with mode 0600 and loads the same keys", () => {
    const random = seededRandom("kf");
    const ring = KeyRing.generate(random, "2026-01-01T00:00:00Z");
    ring.rotate(random, "2026-02-01T00:00:00Z");
    const path = join(dir, "auth.keys");
    saveKeyFile(path, ring);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const loaded = loadKeyFile(path);
    expect(loaded.currentId).toBe(ring.currentId);
    expect(loaded.ids.sort()).toEqual(ring.ids.sort());
    expect(loaded.deriveKey(ring.currentId, "x")).toEqual(ring.deriveKey(ring.currentId, "x"));
  });

  it("refuses a file others can read, naming the fix", () => {
    const path = join(dir, "auth.keys");
    saveKeyFile(path, KeyRing.generate(seededRandom("a"), "t"));
    chmodSync(path, 0o644);
    expect(() => loadKeyFile(path)).toThrow(/mode 0644; it must be 0600 \(chmod 600/);
  });

  it("refuses a symlink and a missing file", () => {
    const path = join(dir, "auth.keys");
    saveKeyFile(path, KeyRing.generate(seededRandom("a"), "t"));
    symlinkSync(path, join(dir, "link"));
    expect(() => loadKeyFile(join(dir, "link"))).toThrow(/symlink/);
    expect(() => loadKeyFile(join(dir, "missing"))).toThrow(/ENOENT/);
  });

  it("bad files get precise errors that never echo a secret", () => {
    const secret = Buffer.alloc(32, 9).toString("base64url");
    const bad: [string, RegExp][] = [
      ["not json", /not valid JSON/],
      [JSON.stringify({ format: "x", version: 1, current: "k1", keys: [] }), /bad format/],
      [JSON.stringify({ format: "provenant-auth-keys", version: 1, current: "k1", keys: [{ id: "k1", secret: secret.slice(0, 20), created: "t" }] }), /at least 32/],
      [JSON.stringify({ format: "provenant-auth-keys", version: 1, current: "k2", keys: [{ id: "k1", secret, created: "t" }] }), /current key id/],
      [JSON.stringify({ format: "provenant-auth-keys", version: 1, current: "k1", keys: [{ id: "k1", secret, created: "t" }, { id: "k1", secret, created: "t" }] }), /twice/],
      [JSON.stringify({ format: "provenant-auth-keys", version: 1, current: "k1", keys: [{ id: "k1", secret: secret + "!", created: "t" }] }), /keys\.0\.secret/],
    ];
    for (const [text, re] of bad) {
      let message = "";
      try {
        parseKeyFile(text);
      } catch (error) {
        expect(error).toBeInstanceOf(KeyFileError);
        message = (error as Error).message;
      }
      expect(message).toMatch(re);
      expect(message).not.toContain(secret.slice(0, 20));
    }
  });

  it("the ring never shows its secrets", () => {
    const ring = KeyRing.fromKeys([{ id: "k0", secret: Buffer.alloc(32, 0xab), created: "t" }], "k0");
    const shown = [String(ring), JSON.stringify(ring), inspect(ring), inspect({ ring }, { depth: 5 })].join("\n");
    expect(shown).toContain("k0");
    expect(shown).not.toMatch(/abab|q6ur|171,/i);
    expect(serializeKeyFile(ring)).toContain(Buffer.alloc(32, 0xab).toString("base64url"));
  });

  it("refuses a short random source and short secrets", () => {
    expect(() => KeyRing.generate(() => new Uint8Array(8), "t")).toThrow(/returned 8 bytes/);
    expect(() => KeyRing.fromKeys([{ id: "k0", secret: Buffer.alloc(16), created: "t" }], "k0")).toThrow(/at least 32/);
    expect(() => KeyRing.fromKeys([{ id: "bad id", secret: Buffer.alloc(32), created: "t" }], "bad id")).toThrow(/must match/);
  });
});

describe("key file and ring: the checks behind the ones above", () => {
  it("the file's own check names the decoded length of a short secret; a shape error names each field, or the top level", () => {
    const short = Buffer.alloc(15, 7).toString("base64url");
    expect(() => parseKeyFile(JSON.stringify({ format: "provenant-auth-keys", version: 1, current: "k1", keys: [{ id: "k1", secret: short, created: "t" }] }))).toThrow(
      "key k1: secret decodes to 15 bytes, at least 32 needed",
    );
    expect(() => parseKeyFile("[]")).toThrow(/: bad \(top level\)$/);
    expect(() => parseKeyFile(JSON.stringify({ format: "provenant-auth-keys", version: 2 }))).toThrow(/: bad version, current, keys$/);
    expect(new KeyFileError("x").name).toBe("KeyFileError");
    expect(serializeKeyFile(KeyRing.generate(seededRandom("a"), "t")).endsWith("}\n")).toBe(true);
  });

  it("a directory is no key file; nor is a file another user owns", () => {
    mkdirSync(join(dir, "keys.json"));
    expect(() => loadKeyFile(join(dir, "keys.json"))).toThrow(`key file ${join(dir, "keys.json")} is not a regular file`);
    const path = join(dir, "other.json");
    saveKeyFile(path, KeyRing.generate(seededRandom("a"), "t"));
    if (process.getuid?.() === 0) {
      chownSync(path, 4242, 4242);
      expect(() => loadKeyFile(path)).toThrow(`key file ${path} belongs to uid 4242, not to this process (uid 0)`);
    }
  });

  it("a rotation never reuses an id, whatever the random source says; ids start with k and are listed", () => {
    const same = () => new Uint8Array(32).fill(1);
    let calls = 0;
    const repeatsOnce = (n: number) => (n === 4 ? new Uint8Array(4).fill(calls++ < 2 ? 0 : 1) : same());
    const ring = KeyRing.generate(repeatsOnce, "t");
    const next = ring.rotate(repeatsOnce, "t2");
    expect(ring.ids).toEqual(["k00000000", "k01010101"]);
    expect(next).toBe("k01010101");
    expect(String(ring)).toBe("KeyRing(current=k01010101, ids=k00000000,k01010101)");
  });
});
