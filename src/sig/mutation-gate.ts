import type { GateCall, GateCommand, GateVerdict, ToolGate } from "../core/gate.js";
import { MAX_COMMAND_PATHS } from "../core/command-files.js";
import { findFilePolicy } from "./file-policy.js";
import { extractPatchTargets } from "./patch-targets.js";
import type { RealPathResolver } from "./real-path.js";
import type { SigConfig } from "./sig-config.js";
import { SIG_DIR } from "./sig-store.js";

/** Parameter names under which write-like tools name their target. */
export const TARGET_PATH_KEYS: readonly string[] = Object.freeze(["path", "file_path", "filePath", "file", "target_file", "notebook_path"]);

/** A patch naming more files than this is refused rather than checked one by one. */
const MAX_PATCH_TARGETS = 256;

export interface MutationGateOptions {
  readonly resolver: RealPathResolver;
  readonly config: () => SigConfig;
  readonly writeTools: readonly string[];
  readonly patchTools: readonly string[];
  /** Project paths that carry a signature, so signed files without an explicit policy stay protected. */
  readonly isSigned: (path: string) => boolean;
  readonly signedFiles: () => Iterable<string>;
  /** Absolute paths no tool may write (the Ed25519 signing key). */
  readonly forbiddenPaths?: readonly string[];
}

export type MutationTarget =
  | { readonly kind: "free" }
  | { readonly kind: "protected"; readonly path: string; readonly pattern: string }
  | { readonly kind: "immutable"; readonly path: string; readonly pattern: string | null }
  | { readonly kind: "signature-store"; readonly path: string }
  | { readonly kind: "forbidden" }
  | { readonly kind: "unresolvable"; readonly target: string; readonly reason: string };

/**
 * Second gate. A write, edit or patch aimed at a file under a sig policy, at a signed file, or at
 * `.sig/` itself is blocked; mutable files are pointed at update_and_sign. A call is a write when
 * its tool is one of `writeTools`/`patchTools` or the guard says the host's tool writes files
 * (`call.files`), and its targets are the path parameters as written plus every path the host may
 * read them as. Targets are resolved as the kernel would (symlinks, `..`, case on case-insensitive
 * systems, hard links), so another name for a protected file is the protected file. A shell
 * command (`call.command`) is refused when it writes such a file by name, or names one and runs a
 * program that may change it (`sed -i`, `rm`, `mv`, a script): its words are read, not what its
 * programs do. It applies to every sender.
 */
export interface MutationGate extends ToolGate {
  /** `check`, plus target paths the framework derived for the call (its path hint), if any. */
  checkWithHints(call: GateCall, derivedPaths: readonly string[]): GateVerdict | undefined;
}

export function createMutationGate(options: MutationGateOptions): MutationGate {
  const writeTools = new Set(options.writeTools);
  const patchTools = new Set(options.patchTools);
  const forbidden = new Set(options.forbiddenPaths ?? []);
  const ci = options.resolver.caseInsensitive;

  const classifyPath = (path: string): MutationTarget => {
    const folded = ci ? path.toLowerCase() : path;
    if (folded === SIG_DIR || folded.startsWith(`${SIG_DIR}/`)) return { kind: "signature-store", path };
    const found = findFilePolicy(options.config(), path, { caseInsensitive: ci });
    if (found !== undefined) {
      return found.policy.mutable === true
        ? { kind: "protected", path, pattern: found.pattern }
        : { kind: "immutable", path, pattern: found.pattern };
    }
    if (options.isSigned(path)) return { kind: "immutable", path, pattern: null };
    return { kind: "free" };
  };

  /**
   * Signed files and the policies' plain paths: the names a protected file can be found by (another
   * name of the same inode, another directory's file that a relative path may be).
   */
  const protectedNames = (): Set<string> => {
    const names = new Set(options.signedFiles());
    for (const pattern of Object.keys(options.config().files ?? {})) if (!pattern.includes("*")) names.add(pattern);
    return names;
  };

  const classify = (target: string): MutationTarget => {
    const resolved = options.resolver.resolve(target);
    if (resolved.kind === "unresolvable") return { kind: "unresolvable", target, reason: resolved.reason };
    if (forbidden.has(resolved.real)) return { kind: "forbidden" };
    if (resolved.kind === "inside") {
      const direct = classifyPath(resolved.path);
      if (direct.kind !== "free") return direct;
    }
    const alias = options.resolver.findHardLinkAlias(resolved.real, protectedNames);
    return alias === undefined ? { kind: "free" } : classifyPath(alias);
  };

  const checkCommand = (tool: string, command: GateCommand): GateVerdict | undefined => {
    const globs = Object.keys(options.config().files ?? {}).some((pattern) => pattern.includes("*"));
    const names = [...protectedNames()];
    if (forbidden.size === 0 && names.length === 0 && !globs) return undefined;
    if (command.named === null) {
      return { verdict: "block", rule: "sig.mutation.unreadable_command", reason: `${tool}: the command has more than ${MAX_COMMAND_PATHS} words that may be paths, too many to check against the signed file policies.` };
    }
    // The signing key may not be named at all: read, it signs anything.
    for (const path of [...command.written, ...command.named]) {
      for (const reading of path.readings) {
        const resolved = options.resolver.resolve(reading);
        if (resolved.kind !== "unresolvable" && forbidden.has(resolved.real)) return verdictFor(tool, { kind: "forbidden" });
      }
    }
    const changed = [...command.written.map((path) => ({ path, written: true })), ...(command.mayChangeNamed ? command.named.map((path) => ({ path, written: false })) : [])];
    for (const { path, written } of changed) {
      for (const reading of path.readings) {
        const target = classify(reading);
        // A word that cannot be a path (a script's text) is no target; a file written by name is.
        if (target.kind === "unresolvable" && !written) continue;
        const verdict = verdictFor(tool, target);
        if (verdict !== undefined) return written ? verdict : named(verdict);
      }
      // The directory a shell is in is not always known (a `cd` to a variable, a shell that keeps
      // its directory between calls): a relative path is also every protected file it ends.
      const tail = relativeTail(path.raw, ci);
      if (tail === null) continue;
      for (const name of names) {
        const folded = ci ? name.toLowerCase() : name;
        if (folded !== tail && !folded.endsWith(`/${tail}`)) continue;
        const verdict = verdictFor(tool, classifyPath(name));
        if (verdict !== undefined) return written ? verdict : named(verdict);
      }
    }
    return undefined;
  };

  const check = (call: GateCall, derivedPaths: readonly string[]): GateVerdict | undefined => {
    if (call.command !== undefined) return checkCommand(call.tool, call.command);
    const hinted = [...derivedPaths, ...(call.files?.paths ?? [])];
    let targets: string[];
    if (patchTools.has(call.tool)) {
      const patch = Object.values(call.params).filter((v): v is string => typeof v === "string").join("\n");
      const named = extractPatchTargets(patch);
      // The host's readings repeat most names: the bound is on the files the patch names.
      targets = [...new Set([...named, ...pathParams(call.params), ...hinted])];
      if (targets.length === 0) {
        return {
          verdict: "block",
          rule: "sig.mutation.unreadable_patch",
          reason: `${call.tool}: no file headers were found in the patch, so its target files cannot be checked against the signed file policies.`,
        };
      }
      if (named.length > MAX_PATCH_TARGETS) {
        return { verdict: "block", rule: "sig.mutation.unreadable_patch", reason: `${call.tool}: the patch names more than ${MAX_PATCH_TARGETS} files.` };
      }
    } else if (writeTools.has(call.tool) || call.files?.writes === true) {
      targets = [...pathParams(call.params), ...hinted];
    } else {
      if (forbidden.size === 0) return undefined;
      // The signing key must not be read either: with it, `.sig/` could be re-signed at will.
      for (const target of [...pathParams(call.params), ...hinted]) {
        const resolved = options.resolver.resolve(target);
        if (resolved.kind !== "unresolvable" && forbidden.has(resolved.real)) return verdictFor(call.tool, { kind: "forbidden" });
      }
      return undefined;
    }
    for (const target of targets) {
      const verdict = verdictFor(call.tool, classify(target));
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  };

  return {
    name: "sig.mutation",
    check: (call) => check(call, []),
    checkWithHints: check,
  };
}

/** A relative path as a tail of project paths (`./a//b` is `a/b`); null for one that is not, or that climbs. */
function relativeTail(raw: string, caseInsensitive: boolean): string | null {
  if (raw.startsWith("/") || raw.startsWith("~")) return null;
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.length === 0 || parts.includes("..")) return null;
  const tail = parts.join("/");
  return caseInsensitive ? tail.toLowerCase() : tail;
}

/** A refusal for a file the command names (rather than writes by name), saying how to read it instead. */
function named(verdict: GateVerdict): GateVerdict {
  return {
    ...verdict,
    reason: `${verdict.reason} A command that names a signed file and runs a program that may change files is refused; read the file with cat, head or a file tool instead.`,
  };
}

/** Every string value under a target-path key; several keys means several candidate targets. */
export function pathParams(params: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const key of TARGET_PATH_KEYS) {
    const value = params[key];
    if (typeof value === "string") out.push(value);
  }
  return out;
}

function verdictFor(tool: string, target: MutationTarget): GateVerdict | undefined {
  switch (target.kind) {
    case "free":
      return undefined;
    case "protected":
      return {
        verdict: "block",
        rule: "sig.mutation.protected_file",
        reason:
          `${target.path} is protected by the signed file policy "${target.pattern}", so ${tool} cannot change it directly. ` +
          `Use the update_and_sign tool with file "${target.path}", the full new content, a reason, sourceType "signed_message" ` +
          `and sourceId set to the id of the signed owner message that asked for the change.`,
      };
    case "immutable":
      return {
        verdict: "block",
        rule: "sig.mutation.immutable_file",
        reason: `${target.path} is a signed, immutable file${target.pattern === null ? "" : ` (policy "${target.pattern}")`}; it cannot be changed by tools. Ask the owner to edit and re-sign it.`,
      };
    case "signature-store":
      return {
        verdict: "block",
        rule: "sig.mutation.signature_store",
        reason: `${target.path} is part of the signature store (${SIG_DIR}/), which tools cannot write.`,
      };
    case "forbidden":
      return { verdict: "block", rule: "sig.mutation.signing_key", reason: `${tool} cannot touch the prompt-signing key.` };
    case "unresolvable":
      return {
        verdict: "block",
        rule: "sig.mutation.unresolved_path",
        reason: `${tool}: the target path could not be resolved safely (${target.reason}), so it cannot be checked against the signed file policies.`,
      };
  }
}
