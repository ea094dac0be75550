/**
 * The outer hash of HMAC-SHA256, SHA-256(K ^ opad || inner digest), finished from the state after
 * the key's opad block: one compression of one block. The opad block is the same for every
 * message under a key, so its state is computed once per key; a native one-shot hash would redo
 * it and cost several times more in call overhead than this whole block does. Only 32-bit
 * additions, rotations and logic on the data, so the time taken does not depend on the key.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

// The message schedule; zeroed after an opad block, whose schedule is derived from the key.
const W = new Int32Array(64);

/** FIPS 180-4's compression function: folds the block whose 16 words are in W[0..15] into `state`. */
function compress(state: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15] as number;
    const y = W[i - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + (K[i] as number) + (W[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
  state[4] = ((state[4] as number) + e) | 0;
  state[5] = ((state[5] as number) + f) | 0;
  state[6] = ((state[6] as number) + g) | 0;
  state[7] = ((state[7] as number) + h) | 0;
}

/** The SHA-256 state after absorbing one 64-byte block (a key's opad block). */
export function stateAfterBlock(block: Buffer): Int32Array {
  if (block.length !== 64) throw new Error("a SHA-256 block is 64 bytes");
  const state = Int32Array.from(IV);
  for (let i = 0; i < 16; i++) W[i] = block.readInt32BE(4 * i);
  compress(state);
  W.fill(0);
  return state;
}

const STATE = new Int32Array(8);

/**
 * SHA-256(opad block || inner) into `out`, given the state after the opad block. `inner` is the
 * 32-byte inner digest as a "binary" (latin1) string, a character per byte: a native hash returns
 * that several times faster than a Buffer, whose allocation costs more than hashing a short message.
 * The block after the opad one is the digest, the 0x80 terminator, zeros, and the message length
 * in bits (768) last.
 */
export function finishOuter(afterOpad: Int32Array, inner: string, out: Buffer): Buffer {
  if (inner.length !== 32) throw new Error("the inner digest is 32 bytes");
  for (let i = 0; i < 8; i++) {
    const p = 4 * i;
    W[i] = (inner.charCodeAt(p) << 24) | (inner.charCodeAt(p + 1) << 16) | (inner.charCodeAt(p + 2) << 8) | inner.charCodeAt(p + 3);
  }
  W[8] = 0x80000000 | 0;
  W.fill(0, 9, 15);
  W[15] = 768;
  STATE.set(afterOpad);
  compress(STATE);
  for (let i = 0; i < 8; i++) out.writeInt32BE(STATE[i] as number, 4 * i);
  return out;
}
