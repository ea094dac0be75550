import { basename } from "node:path";
import { procLink, procText } from "../state/process-files.js";

/**
 * The caller executable allow-list. `/proc/<pid>/exe` names the file the kernel actually executed for
 * the peer (the pid comes from SO_PEERCRED), which a process cannot forge; so a passing check proves the
 * request was sent by a process running one of the listed binaries. It proves nothing for an
 * interpreter (every Node or Python script has the interpreter as its exe), which is why the config
 * refuses to list one and the wrapper ships as a single executable. A listed binary can still be
 * steered at exec time through its environment (LD_PRELOAD for any dynamic binary, NODE_OPTIONS for a
 * Node single executable), so the peer's initial environment is checked for those names as well.
 */
export type CallerVerdict =
  | { readonly ok: true; readonly exe: string | undefined }
  | { readonly ok: false; readonly error: "unauthorized caller" | "failed to verify caller"; readonly detail: string };

const HIJACK = /^(LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|NODE_OPTIONS|NODE_PATH)=/;

export function callerExe(pid: number): string | undefined {
  return procLink(pid, "exe");
}

function environ(pid: number): string[] | undefined {
  return procText(pid, "environ", "latin1")?.split("\0");
}

export function verifyCaller(pid: number, allowed: readonly string[], denyUnverified: boolean): CallerVerdict {
  if (allowed.length === 0) return { ok: true, exe: undefined };
  const exe = callerExe(pid);
  if (exe === undefined) {
    return denyUnverified
      ? { ok: false, error: "failed to verify caller", detail: "caller executable unreadable" }
      : { ok: true, exe: undefined };
  }
  if (!allowed.includes(exe)) return { ok: false, error: "unauthorized caller", detail: `caller executable ${exe} not allowed` };
  const env = environ(pid);
  if (env === undefined) return { ok: false, error: "failed to verify caller", detail: "caller environment unreadable" };
  const hijack = env.find((e) => HIJACK.test(e));
  if (hijack !== undefined) return { ok: false, error: "unauthorized caller", detail: `caller started with ${hijack.split("=")[0]}` };
  return { ok: true, exe };
}

/** argv[0] of the peer, for the admin `check` gate. */
export function callerArgv0(pid: number): string | undefined {
  const argv0 = procText(pid, "cmdline")?.split("\0")[0];
  return argv0 === undefined || argv0 === "" ? undefined : basename(argv0);
}
