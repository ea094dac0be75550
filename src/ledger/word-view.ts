/**
 * A DataView over the bytes of `b`, for reading them a word at a time. The one for the last buffer
 * asked about is kept: verification reads a chunk at a time, and the line reader, the form check and
 * the chain verifier all ask about the same chunk, line after line.
 */
export function wordView(b: Uint8Array): DataView {
  if (b !== viewed) {
    viewed = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  return view;
}

let viewed: Uint8Array | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));
