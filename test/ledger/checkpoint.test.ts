import { createHash, generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextEntry } from "../../src/ledger/chain-entry.js";
import { type Checkpoint, CheckpointError, keyId, openCheckpoint, rawPublicKey, signCheckpoint, verifierKey } from "../../src/ledger/checkpoint.js";
import { entryLeafHash } from "../../src/ledger/merkle-hash.js";
import { MerkleTree } from "../../src/ledger/merkle-tree.js";
import { PROOF_FORMAT, checkProofDocument } from "../../src/ledger/proof-document.js";

const NAME = "provenant.local/ledger";
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const other = generateKeyPairSync("ed25519");

// A small log whose entries are real chain entries.
const entries = [nextEntry(undefined, "GENESIS", { created: "2026-03-01T00:00:00Z" })];
for (let i = 1; i < 40; i++) entries.push(nextEntry(entries[i - 1], "CLAIM", { i }));
const tree = new MerkleTree();
for (const e of entries) tree.append(entryLeafHash(e.hash));
const checkpointAt = (size: number): Checkpoint => ({ origin: NAME, size, root: tree.root(size) });

describe("signed checkpoints (C2SP signed note)", () => {
  const note = signCheckpoint(checkpointAt(40), NAME, privateKey);

  it("have the checkpoint body, a blank line and one signature line", () => {
    const lines = note.split("\n");
    expect(lines.slice(0, 4)).toEqual([NAME, "40", tree.root().toString("base64"), ""]);
    expect(lines[4]).toMatch(new RegExp(`^\u2014 ${NAME.replace("/", "\\/")} [A-Za-z0-9+/]{91}=$`));
    const blob = Buffer.from((lines[4] as string).split(" ")[2] as string, "base64");
    expect(blob.subarray(0, 4).equals(keyId(NAME, publicKey))).toBe(true);
  });

  it("compute the key id as SHA-256(name \\n 0x01 key)[:4] and print the verifier key", () => {
    const expected = createHash("sha256").update(`${NAME}\n`).update(Buffer.from([1])).update(rawPublicKey(publicKey)).digest().subarray(0, 4);
    expect(keyId(NAME, publicKey).equals(expected)).toBe(true);
    expect(verifierKey(NAME, publicKey)).toBe(`${NAME}+${expected.toString("hex")}+${Buffer.concat([Buffer.from([1]), rawPublicKey(publicKey)]).toString("base64")}`);
  });

  it("open with the right key and name", () => {
    expect(openCheckpoint(note, NAME, publicKey)).toEqual(checkpointAt(40));
  });

  it("refuse another key, another name, and any changed byte of the body", () => {
    expect(() => openCheckpoint(note, NAME, other.publicKey)).toThrow(`checkpoint is not signed by key ${NAME}`);
    expect(() => openCheckpoint(note, "someone.else/log", publicKey)).toThrow(CheckpointError);
    expect(() => openCheckpoint(note.replace("\n40\n", "\n39\n"), NAME, publicKey)).toThrow("checkpoint signature does not verify");
    const body = note.slice(0, note.indexOf("\n\n") + 1);
    fc.assert(
      fc.property(fc.nat(body.length - 1), fc.constantFrom("a", "0", "/", "+", "="), (at, ch) => {
        if (body[at] === ch || body[at] === "\n") return;
        const bent = body.slice(0, at) + ch + body.slice(at + 1) + note.slice(body.length);
        expect(() => openCheckpoint(bent, NAME, publicKey)).toThrow(CheckpointError);
      }),
      { numRuns: 300 },
    );
  });

  it("throw only CheckpointError on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string().map((s) => `${NAME}\n1\n${s}\n\n\u2014 ${NAME} ${s}\n`)), (text) => {
        try {
          openCheckpoint(text, NAME, publicKey);
          expect.fail("accepted an unsigned note");
        } catch (error) {
          expect(error).toBeInstanceOf(CheckpointError);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("refuse to sign a malformed checkpoint", () => {
    expect(() => signCheckpoint({ origin: "a\nb", size: 1, root: tree.root(1) }, NAME, privateKey)).toThrow(CheckpointError);
    expect(() => signCheckpoint(checkpointAt(1), "has space", privateKey)).toThrow(CheckpointError);
  });
});

describe("proof documents", () => {
  const trust = { publicKey, keyName: NAME };
  const inclusion = (index: number, size: number) => ({
    format: PROOF_FORMAT,
    kind: "inclusion",
    origin: NAME,
    index,
    size,
    root: tree.root(size).toString("hex"),
    entry: entries[index],
    proof: tree.inclusionProof(index, size).map((p) => p.toString("hex")),
  });
  const consistency = (size1: number, size2: number) => ({
    format: PROOF_FORMAT,
    kind: "consistency",
    origin: NAME,
    size1,
    size2,
    root1: tree.root(size1).toString("hex"),
    root2: tree.root(size2).toString("hex"),
    proof: tree.consistencyProof(size1, size2).map((p) => p.toString("hex")),
  });

  it("check inclusion on their own, and with a checkpoint when trust is required", () => {
    expect(checkProofDocument(inclusion(7, 30))).toMatchObject({ ok: true });
    expect(checkProofDocument(inclusion(7, 30), trust)).toEqual({ ok: false, reason: "no signed checkpoint in the proof to check a root against" });
    const signed = { ...inclusion(7, 30), checkpoint: signCheckpoint(checkpointAt(30), NAME, privateKey) };
    expect(checkProofDocument(signed, trust)).toMatchObject({ ok: true });
    const wrongSize = { ...inclusion(7, 31), checkpoint: signed.checkpoint };
    expect(checkProofDocument(wrongSize, trust)).toEqual({ ok: false, reason: "checkpoint does not vouch for this size and root" });
    const forged = { ...inclusion(7, 30), checkpoint: signCheckpoint(checkpointAt(30), NAME, other.privateKey) };
    expect(checkProofDocument(forged, trust)).toMatchObject({ ok: false });
  });

  it("show a signed newer checkpoint extends a signed older one, and catch a fork", () => {
    const doc = { ...consistency(12, 40), checkpoint1: signCheckpoint(checkpointAt(12), NAME, privateKey), checkpoint2: signCheckpoint(checkpointAt(40), NAME, privateKey) };
    expect(checkProofDocument(doc, trust)).toMatchObject({ ok: true });
    // A log rewritten from entry 5 on, signed by the same key, cannot prove it extends the old checkpoint.
    const forkTree = new MerkleTree();
    let prev = entries[4];
    entries.slice(0, 5).forEach((e) => forkTree.append(entryLeafHash(e.hash)));
    for (let i = 5; i < 40; i++) {
      prev = nextEntry(prev, "CLAIM", { i, forged: true });
      forkTree.append(entryLeafHash(prev.hash));
    }
    const forkDoc = {
      ...doc,
      root2: forkTree.root().toString("hex"),
      proof: forkTree.consistencyProof(12, 40).map((p) => p.toString("hex")),
      checkpoint2: signCheckpoint({ origin: NAME, size: 40, root: forkTree.root() }, NAME, privateKey),
    };
    expect(checkProofDocument(forkDoc, trust)).toEqual({ ok: false, reason: "consistency proof does not lead to the older root" });
  });

  it("reject an entry whose data was changed, before looking at the proof", () => {
    const doc = inclusion(3, 40);
    expect(checkProofDocument({ ...doc, entry: { ...entries[3], data: { i: 4 } } })).toEqual({
      ok: false,
      reason: "entry hash does not match its seq, type and data",
    });
  });

  // Sizes are left out: RFC 9162 verification binds a proof to its root, and the root to a size only
  // through a signed checkpoint (the trust case above); without one, neighbouring sizes can share a path.
  it("never throw on arbitrary JSON or mangled documents, and never accept a mangled one", () => {
    const valid = [inclusion(9, 33), consistency(5, 38)];
    const mangled = fc.tuple(fc.constantFrom(...valid), fc.constantFrom("index", "root", "root1", "root2", "proof", "entry", "kind", "format"), fc.jsonValue()).map(([doc, key, v]) => ({ ...doc, [key]: v }));
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), mangled), (doc) => {
        const result = checkProofDocument(doc);
        if (result.ok) expect(valid.some((v) => JSON.stringify(v) === JSON.stringify(doc))).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });
});
