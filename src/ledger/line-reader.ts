import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export interface LineScan {
  /** Bytes of complete, newline-terminated lines. */
  readonly completeBytes: number;
  readonly totalBytes: number;
}

const CHUNK = 1 << 20;

/**
 * Calls `onLine` for each newline-terminated line of a file, reading it in chunks so a ledger of any
 * length fits in memory. Bytes after the last newline are a torn tail: counted, never handed over.
 * `onLine` gets the bytes holding the line, where in them it starts and ends (before the newline) and
 * the file offset of its first byte, and returns false to stop. Each chunk is read into a fresh
 * buffer, so bytes handed over stay valid after the call.
 */
export function scanLines(
  path: string,
  onLine: (bytes: Buffer, start: number, end: number, offset: number) => boolean,
  onBytes?: (done: number) => void,
): LineScan {
  const fd = openSync(path, "r");
  try {
    const totalBytes = fstatSync(fd).size;
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = 0;
    let position = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafeSlow(CHUNK);
      const read = readSync(fd, chunk, 0, CHUNK, position);
      if (read === 0) break;
      position += read;
      const buffer = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)]);
      let start = 0;
      for (let nl = buffer.indexOf(0x0a, start); nl !== -1; nl = buffer.indexOf(0x0a, start)) {
        const keepGoing = onLine(buffer, start, nl, carryOffset + start);
        start = nl + 1;
        if (!keepGoing) return { completeBytes: carryOffset + start, totalBytes };
      }
      carryOffset += start;
      carry = Buffer.from(buffer.subarray(start));
      onBytes?.(position);
    }
    return { completeBytes: carryOffset, totalBytes };
  } finally {
    closeSync(fd);
  }
}
