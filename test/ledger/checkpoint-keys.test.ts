import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateCheckpointKey, loadPublicKey, loadSigningKey } from "../../src/ledger/checkpoint-keys.js";
import { CheckpointError } from "../../src/ledger/checkpoint.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "provenant-ckeys-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the checkpoint signing key on disk", () => {
  it("is made as an Ed25519 pair, the private half readable by the owner only, in a directory only the owner enters; never over an existing key", () => {
    const privatePath = join(dir, "keys", "ledger.key");
    const { publicKey, publicPath } = generateCheckpointKey(privatePath);
    expect(publicKey.asymmetricKeyType).toBe("ed25519");
    expect(statSync(privatePath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "keys")).mode & 0o777).toBe(0o700);
    expect(statSync(publicPath).mode & 0o777).toBe(0o644);
    expect(readFileSync(privatePath, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(loadPublicKey(publicPath).export({ format: "jwk" })).toEqual(publicKey.export({ format: "jwk" }));
    expect(loadSigningKey(privatePath, join(dir, "workspace")).asymmetricKeyType).toBe("ed25519");
    const before = readFileSync(privatePath, "utf8");
    expect(() => generateCheckpointKey(privatePath)).toThrow(new CheckpointError(`refusing to overwrite existing key ${privatePath}`));
    expect(readFileSync(privatePath, "utf8")).toBe(before);
  });

  it("is refused when the agent could read or have planted it, or when it is no Ed25519 private key", () => {
    const workspace = join(dir, "workspace");
    mkdirSync(workspace);
    const key = join(dir, "ledger.key");
    generateCheckpointKey(key);
    expect(() => loadSigningKey(join(dir, "missing.key"), workspace)).toThrow(
      new CheckpointError(`no checkpoint signing key at ${join(dir, "missing.key")} (create one with: provenant ledger keygen)`),
    );
    for (const mode of [0o640, 0o604, 0o601, 0o610]) {
      chmodSync(key, mode);
      expect(() => loadSigningKey(key, workspace)).toThrow(
        new CheckpointError(`checkpoint signing key ${key} is accessible to group or others (mode ${mode.toString(8)}); chmod 600 it`),
      );
    }
    chmodSync(key, 0o400);
    expect(loadSigningKey(key, workspace).asymmetricKeyType).toBe("ed25519");
    expect(() => loadSigningKey(dir, workspace)).toThrow(new CheckpointError(`checkpoint signing key ${dir} is not a regular file`));
    // Inside the workspace, also by a link from outside into it, and as the workspace's own path.
    const inside = join(workspace, "ledger.key");
    generateCheckpointKey(inside);
    expect(() => loadSigningKey(inside, workspace)).toThrow(new CheckpointError(`checkpoint signing key ${inside} is inside the workspace, within the agent's reach; move it out`));
    const link = join(dir, "link.key");
    symlinkSync(inside, link);
    expect(() => loadSigningKey(link, workspace)).toThrow(/is inside the workspace/);
    const sibling = join(dir, "workspace-other");
    mkdirSync(sibling);
    const besideKey = join(sibling, "ledger.key");
    generateCheckpointKey(besideKey);
    expect(loadSigningKey(besideKey, workspace).asymmetricKeyType).toBe("ed25519");
    const notPem = join(dir, "not.key");
    writeFileSync(notPem, "hello", { mode: 0o600 });
    expect(() => loadSigningKey(notPem, undefined)).toThrow(new CheckpointError(`checkpoint signing key ${notPem} is not a PEM private key`));
    const ec = join(dir, "ec.key");
    writeFileSync(ec, generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
    expect(() => loadSigningKey(ec, undefined)).toThrow(new CheckpointError(`checkpoint signing key ${ec} is not Ed25519`));
  });

  it("a public key is read as PEM and must be Ed25519", () => {
    const notPem = join(dir, "x.pub");
    writeFileSync(notPem, "nope");
    expect(() => loadPublicKey(notPem)).toThrow(new CheckpointError(`${notPem} is not a PEM public key`));
    const ec = join(dir, "ec.pub");
    writeFileSync(ec, generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "pem", type: "spki" }));
    expect(() => loadPublicKey(ec)).toThrow(new CheckpointError(`${ec} is not an Ed25519 public key`));
  });
});
