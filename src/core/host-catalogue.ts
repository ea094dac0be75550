import type { ActionClass } from "./action-classes.js";
import type { ToolArgumentRoles } from "./argument-roles.js";
import { CLAUDE_CODE_HOME_PROTECTED_PATTERNS, CLAUDE_CODE_PROTECTED_PATTERNS, CLAUDE_CODE_TOOLS } from "./claude-code-tools.js";
import type { PolicyMode } from "./policy-modes.js";
import {
  DEFAULT_ACTION_CLASSES,
  DEFAULT_DANGEROUS_TOOLS,
  DEFAULT_SAFE_TOOLS,
  DEFAULT_TAINT_DEFAULT_TOOLS,
  DEFAULT_TOOL_OUTPUT_TAINTS,
  FILE_WRITE_TOOLS,
  MESSAGE_TOOL,
  TOOL_CATALOGUE,
  type CatalogueEntry,
} from "./tool-catalogue.js";
import type { TrustLevel } from "./trust-levels.js";

/** The agent hosts provenant has a catalogue for (config key `host`). */
export const HOSTS = ["openclaw", "claude-code"] as const;
export type HostName = (typeof HOSTS)[number];

/**
 * One host's model of its tools: the catalogue, and which tools read files, write files, run shell
 * commands, or hand back a background command's output, by the names that host gives them.
 */
export interface HostCatalogue {
  readonly host: HostName;
  readonly entries: Readonly<Record<string, CatalogueEntry>>;
  readonly outputTaints: Readonly<Record<string, TrustLevel>>;
  readonly actionClasses: Readonly<Record<string, ActionClass>>;
  readonly safeTools: readonly string[];
  readonly taintDefaultTools: readonly string[];
  readonly dangerousTools: Readonly<Record<string, Readonly<Record<string, PolicyMode>>>>;
  /** Tools whose output is a file named by `path`, `file_path` or `notebook_path`. */
  readonly fileReadTools: ReadonlySet<string>;
  /**
   * Tools that search beneath `path` (the workspace when none), skipping what git ignores: `tree`
   * prints lines or names of any file there, `glob` the names its `pattern` matches.
   */
  readonly searchTools: Readonly<Record<string, "tree" | "glob">>;
  /** Tools that write a file, whose target may be a protected file. */
  readonly fileWriteTools: ReadonlySet<string>;
  /** Tools that run the shell command in `command` (output trust by command). */
  readonly execTools: ReadonlySet<string>;
  /** Tools that hand back a backgrounded command's output. */
  readonly backgroundOutputTools: ReadonlySet<string>;
  /** The tool whose sends to the owner's own DM are always allowed, if the host has one. */
  readonly messageTool: string | null;
  /** Workspace-relative patterns of files the host reads back as instructions (beyond the defaults). */
  readonly protectedPatterns: readonly string[];
  /** The same, relative to the user's home directory. */
  readonly homeProtectedPatterns: readonly string[];
  /** Argument roles of the host's tools, under the owner's `toolArgumentRoles` (a tool the owner names is the owner's). */
  readonly argumentRoles: ToolArgumentRoles;
}

function derived(entries: Readonly<Record<string, CatalogueEntry>>) {
  const names = Object.keys(entries);
  const call = (kind: CatalogueEntry["call"]) => Object.freeze(names.filter((t) => entries[t]?.call === kind));
  return {
    outputTaints: Object.freeze(Object.fromEntries(names.map((t) => [t, entries[t]?.output ?? "untrusted"]))) as Readonly<Record<string, TrustLevel>>,
    actionClasses: Object.freeze(Object.fromEntries(names.map((t) => [t, entries[t]?.action ?? "trade"]))) as Readonly<Record<string, ActionClass>>,
    safeTools: call("safe"),
    taintDefaultTools: call("taint"),
    dangerousTools: Object.freeze(Object.fromEntries(call("dangerous").map((t) => [t, Object.freeze({ "*": "confirm" as const })]))),
  };
}

/**
 * OpenClaw 2026.9.6 lists every skill it finds (a `SKILL.md` up to six levels under a skills
 * folder) in the agent's prompt in every later session, the workspace's first; a skill folder's
 * scripts are what the skill tells the agent to run. The user's own folders, the managed ones in
 * its state directory, and its configuration (which plugins run, this one included) are read back
 * the same way.
 */
const OPENCLAW_PROTECTED_PATTERNS: readonly string[] = Object.freeze([
  "skills/**",
  ".agents/skills/**",
  // What its boot-md hook runs at every start of the gateway, as instructions to follow exactly.
  "BOOT.md",
]);
const OPENCLAW_HOME_PROTECTED_PATTERNS: readonly string[] = Object.freeze([".agents/skills/**", ".openclaw/skills/**", ".openclaw/agents/*/agent/workshop-skills/**", ".openclaw/openclaw.json"]);

const OPENCLAW: HostCatalogue = Object.freeze({
  host: "openclaw",
  entries: TOOL_CATALOGUE,
  outputTaints: DEFAULT_TOOL_OUTPUT_TAINTS,
  actionClasses: DEFAULT_ACTION_CLASSES,
  safeTools: DEFAULT_SAFE_TOOLS,
  taintDefaultTools: DEFAULT_TAINT_DEFAULT_TOOLS,
  dangerousTools: DEFAULT_DANGEROUS_TOOLS,
  fileReadTools: new Set(["read", "Read", "ls", "pdf"]),
  searchTools: {},
  fileWriteTools: FILE_WRITE_TOOLS,
  execTools: new Set(["exec"]),
  backgroundOutputTools: new Set(["process"]),
  messageTool: MESSAGE_TOOL,
  protectedPatterns: OPENCLAW_PROTECTED_PATTERNS,
  homeProtectedPatterns: OPENCLAW_HOME_PROTECTED_PATTERNS,
  // What a fetch or a search sends out is its effect: under taint it must occur whole in one source.
  // `pdf` and `view_image` take "a path or URL" and fetch the URL themselves: a local path no source
  // names asks too under taint, the price of not telling the two apart. `x_search` (the bundled xAI
  // plugin) sends its query to the provider's search as `web_search` does. The file-transfer
  // plugin's reads connect to the gateway a `gatewayUrl` names before any policy is consulted (the
  // host's other tools that take one follow the taint policy).
  argumentRoles: Object.freeze({
    web_fetch: Object.freeze({ url: "egress" as const }),
    web_search: Object.freeze({ query: "egress" as const }),
    x_search: Object.freeze({ query: "egress" as const }),
    file_fetch: Object.freeze({ gatewayUrl: "egress" as const }),
    dir_list: Object.freeze({ gatewayUrl: "egress" as const }),
    dir_fetch: Object.freeze({ gatewayUrl: "egress" as const }),
    pdf: Object.freeze({ pdf: "egress" as const, pdfs: "egress" as const }),
    view_image: Object.freeze({ path: "egress" as const, paths: "egress" as const }),
  }),
});

const CLAUDE_CODE_ENTRIES: Readonly<Record<string, CatalogueEntry>> = Object.freeze(Object.assign(Object.create(null) as Record<string, CatalogueEntry>, CLAUDE_CODE_TOOLS));

const CLAUDE_CODE: HostCatalogue = Object.freeze({
  host: "claude-code",
  entries: CLAUDE_CODE_ENTRIES,
  ...derived(CLAUDE_CODE_ENTRIES),
  fileReadTools: new Set(["Read", "NotebookRead", "LSP"]),
  searchTools: Object.freeze({ Grep: "tree" as const, Glob: "glob" as const }),
  fileWriteTools: new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]),
  execTools: new Set(["Bash", "Monitor"]),
  backgroundOutputTools: new Set(["BashOutput", "TaskOutput"]),
  messageTool: null,
  protectedPatterns: CLAUDE_CODE_PROTECTED_PATTERNS,
  homeProtectedPatterns: CLAUDE_CODE_HOME_PROTECTED_PATTERNS,
  // What a fetch or a search sends out is its effect: under taint it must occur whole in one source.
  // An MCP resource's URI goes to its server, which may be remote, or fetch what it names.
  argumentRoles: Object.freeze({
    WebFetch: Object.freeze({ url: "egress" as const }),
    WebSearch: Object.freeze({ query: "egress" as const }),
    ReadMcpResourceTool: Object.freeze({ uri: "egress" as const }),
  }),
});

/** The catalogue of a host (`openclaw` when the configuration names none). */
export function hostCatalogue(host: HostName = "openclaw"): HostCatalogue {
  return host === "claude-code" ? CLAUDE_CODE : OPENCLAW;
}

