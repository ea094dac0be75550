import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomic-file.js";
import { ensureDirDurable } from "./durable-dir.js";
import { withFileLock } from "./file-lock.js";
import { setAside } from "./quarantine.js";
import { readStateFile } from "./state-file-read.js";

/**
 * The definitions of a tool server's tools as the owner first saw them (trust on first use),
 * `<workspace>/.provenance/mcp-pins/<server>.json`. A definition that later differs from its pin,
 * or a tool that appears after the first complete listing, is held until the owner accepts it: a
 * server cannot rewrite what a tool says it does (a "rug pull") behind the owner's back. The same
 * store pins the server's other words a client shows its model (instructions, prompt and resource
 * listings); what a held one means is the proxy's to say.
 *
 * Every change is a read-modify-write under a lock file, written atomically, so several proxies
 * of one server and the owner's `accept` never undo each other. A file that cannot be read is set
 * aside and every tool is held: losing the pins must not mean trusting whatever is served now.
 */
const pinSchema = z.strictObject({ digest: z.string().regex(/^[0-9a-f]{64}$/u), definition: z.unknown(), pinnedAt: z.iso.datetime() });
const heldSchema = z.strictObject({
  digest: z.string().regex(/^[0-9a-f]{64}$/u),
  definition: z.unknown(),
  seenAt: z.iso.datetime(),
  previousDigest: z.string().regex(/^[0-9a-f]{64}$/u).nullable(),
});
const fileSchema = z.strictObject({
  version: z.literal(1),
  server: z.string(),
  /** A listing has been seen to its last page: tools that appear after it are new, and held. */
  complete: z.boolean(),
  tools: z.record(z.string(), pinSchema),
  held: z.record(z.string(), heldSchema),
});

export type ToolPin = z.infer<typeof pinSchema>;
export type HeldTool = z.infer<typeof heldSchema>;

export type PinKind = "tools" | "instructions" | "prompts" | "resources" | "resource-templates";

/**
 * Held entries a listing's pin file keeps for the owner's review. An entry dropped past this is
 * still not pinned (listed again, it is counted and held again): the bound only stops a server
 * that lists ever new entries from growing the file, and each listing's rewrite of it, without end.
 */
export const MAX_HELD_LISTED = 1000;

export interface PinState {
  readonly complete: boolean;
  readonly tools: Map<string, ToolPin>;
  readonly held: Map<string, HeldTool>;
}

export interface ListedTool {
  readonly name: string;
  readonly digest: string;
  readonly definition: unknown;
}

export class ToolPinStore {
  readonly file: string;
  private readonly lockFile: string;

  constructor(
    workspaceDir: string,
    readonly server: string,
    private readonly onCorrupt: (detail: string, movedTo: string) => void = () => undefined,
    /**
     * What is pinned besides tools, each the same way in `<server>.<kind>.json`: the server's
     * initialize `instructions`, and the entries of its `prompts`, `resources` and
     * `resource-templates` listings (keyed by prompt name, URI and URI template).
     */
    private readonly kind: PinKind = "tools",
  ) {
    const dir = join(workspaceDir, ".provenance", "mcp-pins");
    this.file = join(dir, kind === "tools" ? `${server}.json` : `${server}.${kind}.json`);
    this.lockFile = `${this.file}.lock`;
  }

  /**
   * One page of a tool listing: pins what is new in a first listing, holds what changed. Returns
   * the listed tools that are held. The first listing ends at its last page, or when a listing
   * starts over after pins were made: a client that never reads past a page must not leave the
   * first listing open for whatever the server adds later.
   */
  observe(listed: readonly ListedTool[], page: { readonly first: boolean; readonly last: boolean }, now: Date): Set<string> {
    return this.update((state) => {
      let changed = false;
      if (page.first && !state.complete && state.tools.size > 0) {
        state.complete = true;
        changed = true;
      }
      const held = new Set<string>();
      for (const tool of listed) {
        const pin = state.tools.get(tool.name);
        if (pin !== undefined && pin.digest === tool.digest) {
          if (state.held.delete(tool.name)) changed = true;
          continue;
        }
        if (pin === undefined && !state.complete) {
          state.tools.set(tool.name, { digest: tool.digest, definition: tool.definition, pinnedAt: now.toISOString() });
          changed = true;
          continue;
        }
        held.add(tool.name);
        const known = state.held.get(tool.name);
        if (known?.digest !== tool.digest) {
          state.held.set(tool.name, { digest: tool.digest, definition: tool.definition, seenAt: now.toISOString(), previousDigest: pin?.digest ?? null });
          changed = true;
        }
      }
      if (page.last && !state.complete) {
        state.complete = true;
        changed = true;
      }
      if (this.kind !== "tools" && this.kind !== "instructions" && state.held.size > MAX_HELD_LISTED) {
        // A listing changes with the server's data (every new resource is held): its held entries
        // are kept for review only, so the oldest go. A tool's held record keeps it hidden: never dropped.
        const oldest = [...state.held].sort(([, a], [, b]) => a.seenAt.localeCompare(b.seenAt)).slice(0, state.held.size - MAX_HELD_LISTED);
        for (const [name] of oldest) state.held.delete(name);
        changed = true;
      }
      return { result: held, changed };
    });
  }

  /** The owner accepts held definitions (the named tools, or all): they become the pins. Returns the names accepted. */
  accept(names: readonly string[] | "all", now: Date): string[] {
    return this.update((state) => {
      const accepted: string[] = [];
      for (const [name, held] of [...state.held]) {
        if (names !== "all" && !names.includes(name)) continue;
        state.tools.set(name, { digest: held.digest, definition: held.definition, pinnedAt: now.toISOString() });
        state.held.delete(name);
        accepted.push(name);
      }
      return { result: accepted, changed: accepted.length > 0 };
    });
  }

  read(): PinState {
    ensureDirDurable(join(this.file, ".."));
    return withFileLock(this.lockFile, () => this.load());
  }

  private update<T>(body: (state: PinState & { complete: boolean }) => { result: T; changed: boolean }): T {
    ensureDirDurable(join(this.file, ".."));
    return withFileLock(this.lockFile, () => {
      const state = { ...this.load() };
      const { result, changed } = body(state);
      if (changed) this.write(state);
      return result;
    });
  }

  private load(): PinState & { complete: boolean } {
    const file = readStateFile(this.file);
    if (file.kind === "missing") return { complete: false, tools: new Map(), held: new Map() };
    let detail: string;
    if (file.kind === "bad") {
      detail = file.detail;
    } else {
      try {
        const parsed = fileSchema.safeParse(JSON.parse(file.text));
        if (parsed.success && parsed.data.server === this.server) {
          return { complete: parsed.data.complete, tools: new Map(Object.entries(parsed.data.tools)), held: new Map(Object.entries(parsed.data.held)) };
        }
        detail = parsed.success ? `it pins server ${JSON.stringify(parsed.data.server)}` : parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      } catch (error) {
        detail = `not JSON (${error instanceof Error ? error.message : String(error)})`;
      }
    }
    const movedTo = setAside(this.file, new Date());
    this.onCorrupt(detail, movedTo);
    // Complete with no pins: every tool served from now on is new, so held until accepted.
    const state = { complete: true, tools: new Map<string, ToolPin>(), held: new Map<string, HeldTool>() };
    this.write(state);
    return state;
  }

  private write(state: PinState): void {
    const body = {
      version: 1,
      server: this.server,
      complete: state.complete,
      tools: Object.fromEntries([...state.tools].sort(([a], [b]) => (a < b ? -1 : 1))),
      held: Object.fromEntries([...state.held].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`);
  }
}
