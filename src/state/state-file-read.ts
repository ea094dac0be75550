import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readlinkSync } from "node:fs";

/** No state file of ours comes near this; a bigger one is not ours (or is an attack on memory). */
export const MAX_STATE_FILE_BYTES = 64 * 1024 * 1024;

export type StateFileRead =
  | { readonly kind: "missing" }
  | { readonly kind: "ok"; readonly text: string }
  /** Present but not usable as our file; `detail` says why in words. */
  | { readonly kind: "bad"; readonly detail: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/** An errno as words an owner can act on. */
export function describeFsError(error: unknown): string {
  const code = errorCode(error);
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a directory";
    case "ENOTDIR":
      return "a parent of it is not a directory";
    case "ELOOP":
      return "it is a symbolic link (or a loop of them)";
    case "ENXIO":
      return "it is a socket or device, not a file";
    case "EMFILE":
    case "ENFILE":
      return "too many open files";
    case "EIO":
      return "an input/output error";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Reads one of our state files without trusting what is at its path: a symbolic link (which
 * could point anywhere, or make our next write land elsewhere), a directory, a device, a file
 * too big, one that is not UTF-8, or one that cannot be read are each reported as `bad`, never
 * thrown, so the caller quarantines instead of failing.
 */
export function readStateFile(path: string, maxBytes = MAX_STATE_FILE_BYTES): StateFileRead {
  let st;
  try {
    st = lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    return { kind: "bad", detail: `cannot be examined: ${describeFsError(error)}` };
  }
  if (st.isSymbolicLink()) {
    let target = "?";
    try {
      target = readlinkSync(path);
    } catch {
      // The link's target is only for the report.
    }
    return { kind: "bad", detail: `is a symbolic link (to ${JSON.stringify(target)}), not a file` };
  }
  if (st.isDirectory()) return { kind: "bad", detail: "is a directory, not a file" };
  if (!st.isFile()) return { kind: "bad", detail: "is not a regular file (a socket, pipe or device)" };
  if (st.size > maxBytes) return { kind: "bad", detail: `is ${st.size} bytes; a state file is at most ${maxBytes}` };
  let fd: number;
  try {
    // O_NOFOLLOW and O_NONBLOCK: a path swapped for a link or a FIFO since the lstat is refused, not followed or waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    return { kind: "bad", detail: `cannot be read: ${describeFsError(error)}` };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return { kind: "bad", detail: `is ${size} bytes; a state file is at most ${maxBytes}` };
    const buffer = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buffer, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    try {
      return { kind: "ok", text: utf8.decode(buffer.subarray(0, off)) };
    } catch {
      return { kind: "bad", detail: "is not valid UTF-8" };
    }
  } catch (error) {
    return { kind: "bad", detail: `cannot be read: ${describeFsError(error)}` };
  } finally {
    closeSync(fd);
  }
}
