import { createHash, generateKeyPairSync, sign } from "node:crypto";
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

  it("refuse to sign a malformed checkpoint, saying why", () => {
    expect(() => signCheckpoint({ origin: "a\nb", size: 1, root: tree.root(1) }, NAME, privateKey)).toThrow(new CheckpointError("origin must be one non-empty line"));
    expect(() => signCheckpoint({ origin: "", size: 1, root: tree.root(1) }, NAME, privateKey)).toThrow("origin must be one non-empty line");
    expect(() => signCheckpoint({ origin: NAME, size: 1, root: tree.root(1).subarray(1) }, NAME, privateKey)).toThrow("root must be 32 bytes");
    for (const name of ["has space", "", "a+b", "tab\there"]) {
      expect(() => signCheckpoint(checkpointAt(1), name, privateKey)).toThrow("key name must be non-empty with no spaces or '+'");
    }
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => keyId(NAME, rsa.publicKey)).toThrow("checkpoint keys must be Ed25519");
    expect(new CheckpointError("x").name).toBe("CheckpointError");
  });

  it("refuse a note in any other form, each with its reason, even when its body is signed", () => {
    /** A note whose body is exactly `body`, signed with the right key and name. */
    const signed = (body: string) => `${body}\n\u2014 ${NAME} ${Buffer.concat([keyId(NAME, publicKey), sign(null, Buffer.from(body), privateKey)]).toString("base64")}\n`;
    const root = tree.root(40).toString("base64");
    const refused: [string, string][] = [
      [`${"x".repeat(64 * 1024 + 1)}`, "checkpoint is too large"],
      [`${NAME}\n40\n${root}\n`, "not a signed note: no blank line before the signatures"],
      [note.slice(0, -1), "not a signed note: no blank line before the signatures"],
      [note.replace("\u2014 ", "- "), "malformed signature line"],
      [note.replace(/\n$/, " extra\n"), "malformed signature line"],
      [`${note.split("\n\n")[0]}\n\n\u2014 ${NAME}\n`, "malformed signature line"],
      [note.replace(/=\n$/, "\n"), "malformed signature"],
      [note.replace(/ (\S{4})(\S+)\n$/, " $1$1$2\n"), "malformed signature"],
      [signed(`\n40\n${root}\n`), "checkpoint body needs origin, size and root lines"],
      [signed(`${NAME}\n`), "checkpoint body needs origin, size and root lines"],
      ...["040", "-1", "4.0", "1e2", " 40", "40 ", "12345678901234567"].map((size): [string, string] => [signed(`${NAME}\n${size}\n${root}\n`), "checkpoint size is not a decimal count"]),
      [signed(`${NAME}\n9999999999999999\n${root}\n`), "checkpoint size is not a decimal count"],
      [signed(`${NAME}\n40\n${root.slice(0, -2)}\n`), "checkpoint root is not 32 bytes of base64"],
      [signed(`${NAME}\n40\n${tree.root(40).toString("base64url")}\n`), "checkpoint root is not 32 bytes of base64"],
      [signed(`${NAME}\n40\n${Buffer.alloc(33).toString("base64")}\n`), "checkpoint root is not 32 bytes of base64"],
    ];
    for (const [text, reason] of refused) expect(() => openCheckpoint(text, NAME, publicKey), reason).toThrow(new CheckpointError(reason));
    // Within the bounds, the same forms are taken: a signature by another key beside ours, size 0.
    const zero = signed(`${NAME}\n0\n${root}\n`);
    expect(openCheckpoint(zero, NAME, publicKey).size).toBe(0);
    const both = `${note.slice(0, -1)}\n\u2014 other.log ${Buffer.alloc(68).toString("base64")}\n`;
    expect(openCheckpoint(both, NAME, publicKey).size).toBe(40);
    expect(openCheckpoint(signed(`${NAME}\n${2 ** 53 - 1}\n${root}\n`), NAME, publicKey).size).toBe(2 ** 53 - 1);
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

  it("a signed checkpoint vouches only for its own log, size and root: a forged tree of the same size is refused", () => {
    // The attacker's tree: the same 30 entries but for one, rewritten, with a proof that holds in it.
    const forgedTree = new MerkleTree();
    const forgedEntry = nextEntry(entries[6], "CLAIM", { i: 7, forged: true });
    entries.slice(0, 30).forEach((e, i) => forgedTree.append(entryLeafHash(i === 7 ? forgedEntry.hash : e.hash)));
    const real = signCheckpoint(checkpointAt(30), NAME, privateKey);
    const forgedDoc = {
      ...inclusion(7, 30),
      entry: forgedEntry,
      root: forgedTree.root().toString("hex"),
      proof: forgedTree.inclusionProof(7, 30).map((p) => p.toString("hex")),
      checkpoint: real,
    };
    expect(checkProofDocument({ ...forgedDoc, checkpoint: undefined })).toMatchObject({ ok: true });
    expect(checkProofDocument(forgedDoc, trust)).toEqual({ ok: false, reason: "checkpoint does not vouch for this size and root" });
    // A checkpoint of the same root for another size (a key that signs anything) vouches for neither.
    const otherSize = signCheckpoint({ origin: NAME, size: 31, root: tree.root(30) }, NAME, privateKey);
    expect(checkProofDocument({ ...inclusion(7, 30), checkpoint: otherSize }, trust)).toEqual({ ok: false, reason: "checkpoint does not vouch for this size and root" });
    // The same key signing another log's checkpoint of the same size and root.
    const otherLog = signCheckpoint({ origin: "other.example/log", size: 30, root: tree.root(30) }, NAME, privateKey);
    expect(checkProofDocument({ ...inclusion(7, 30), checkpoint: otherLog }, trust)).toEqual({ ok: false, reason: `checkpoint origin other.example/log is not ${NAME}` });
  });

  it("a consistency proof with trust needs a checkpoint, and each one it carries must vouch for its side", () => {
    const good1 = signCheckpoint(checkpointAt(12), NAME, privateKey);
    const good2 = signCheckpoint(checkpointAt(40), NAME, privateKey);
    const forged1 = signCheckpoint(checkpointAt(12), NAME, other.privateKey);
    expect(checkProofDocument(consistency(12, 40), trust)).toEqual({ ok: false, reason: "no signed checkpoint in the proof to check a root against" });
    expect(checkProofDocument(consistency(12, 40))).toMatchObject({ ok: true });
    expect(checkProofDocument({ ...consistency(12, 40), checkpoint2: good2 }, trust)).toEqual({
      ok: true,
      summary: `the log of size 40 (root ${tree.root(40).toString("hex")}) extends the log of size 12 (root ${tree.root(12).toString("hex")})`,
    });
    expect(checkProofDocument({ ...consistency(12, 40), checkpoint1: good1 }, trust)).toMatchObject({ ok: true });
    expect(checkProofDocument({ ...consistency(12, 40), checkpoint1: forged1, checkpoint2: good2 }, trust)).toEqual({ ok: false, reason: `older checkpoint: checkpoint is not signed by key ${NAME}` });
    expect(checkProofDocument({ ...consistency(12, 40), checkpoint1: good1, checkpoint2: good1 }, trust)).toEqual({ ok: false, reason: "newer checkpoint: checkpoint does not vouch for this size and root" });
  });

  it("says what is wrong with a document that is not one, and what a good one shows", () => {
    expect(checkProofDocument(null)).toEqual({ ok: false, reason: "not a proof document: (root): Invalid input: expected object, received null" });
    expect(checkProofDocument({ ...inclusion(3, 40), root: "AB" })).toEqual({ ok: false, reason: "not a proof document: root: expected 64 lowercase hex digits" });
    expect(checkProofDocument({ ...inclusion(3, 40), entry: { ...entries[3], hash: "x" } })).toEqual({ ok: false, reason: "not a proof document: entry.hash: expected 64 lowercase hex digits" });
    expect(checkProofDocument(inclusion(3, 40))).toEqual({ ok: true, summary: `entry 3 (seq 3, CLAIM) is in the log of size 40 with root ${tree.root(40).toString("hex")}` });
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
