import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { describeFsError } from "../state/state-file-read.js";

/** Inputs the CLI reads whole (configs, traces); a bigger one is refused before it is read. */
export const MAX_INPUT_FILE_BYTES = 256 * 1024 * 1024;

/** A file the command was given that cannot be used: names the path and the reason in words. */
export class InputFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot read ${JSON.stringify(path)}: ${reason}`);
    this.name = "InputFileError";
  }
}

/** Reads a text file given on the command line, or throws InputFileError. */
export function readInputFile(path: string, maxBytes = MAX_INPUT_FILE_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new InputFileError(path, describeFsError(error));
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new InputFileError(path, "it is a directory");
    if (!st.isFile()) throw new InputFileError(path, "it is not a regular file");
    if (st.size > maxBytes) throw new InputFileError(path, `it is ${st.size} bytes; the limit is ${maxBytes}`);
    const buffer = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buffer, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, off));
    } catch {
      throw new InputFileError(path, "it is not UTF-8 text");
    }
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(path, describeFsError(error));
  } finally {
    closeSync(fd);
  }
}
