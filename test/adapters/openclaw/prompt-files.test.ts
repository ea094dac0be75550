import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openclawInstallations } from "../../../src/adapters/openclaw/host-installation.js";
import { MAX_PROMPT_FILES, promptFiles } from "../../../src/adapters/openclaw/prompt-files.js";
import { tempDir } from "../../temp-dirs.js";

function touch(path: string, text = "x\n"): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A system prompt laid out as OpenClaw 2026.9.6 lays it out (abridged). */
function prompt(opts: { before?: string; skills?: readonly string[]; context?: readonly { path: string; text: string }[] }): string {
  const skills = (opts.skills ?? []).map((location) => `  <skill>\n    <name>s</name>\n    <description>d</description>\n    <location>${location}</location>\n  </skill>`);
  const context = (opts.context ?? []).flatMap(({ path, text }) => [`## ${path}`, "", text, ""]);
  return [
    "You are a personal assistant running inside OpenClaw.",
    opts.before ?? "",
    "<available_skills>",
    ...skills,
    "</available_skills>",
    "## Workspace Files (injected)",
    "User-editable; OpenClaw loads below as Project Context.",
    "# Project Context",
    "",
    "Loaded project context:",
    "",
    ...context,
  ].join("\n");
}

describe("the files OpenClaw puts in the system prompt", () => {
  it("are the Project Context files, each skill's location, and the workspace's bootstrap files even when the prompt does not name them", () => {
    const root = tempDir("provenant-prompt-files-");
    const ws = join(root, "workspace");
    const soul = touch(join(ws, "SOUL.md"));
    const memory = touch(join(ws, "MEMORY.md"));
    const extra = touch(join(ws, "docs", "team notes.md"));
    const skill = touch(join(root, "home", ".openclaw", "skills", "a&b", "SKILL.md"));
    const bundled = touch(join(root, "pkg", "skills", "weather", "SKILL.md"));
    const text = prompt({
      skills: ["~/.openclaw/skills/a&amp;b/SKILL.md", `${join(root, "pkg", "skills", "weather", "SKILL.md")}`, join(root, "gone", "SKILL.md")],
      context: [
        { path: soul, text: "Careful." },
        { path: extra.replaceAll("/", "\\"), text: "## Notes\n## relative/path.md" },
        { path: join(ws, "USER.md"), text: "[MISSING] Expected at: x" },
      ],
    });
    const found = promptFiles(text, ws, join(root, "home"));
    expect(found.overflow).toBe(false);
    // The bootstrap files first (the ones on disk), then the Project Context's, then the skills',
    // each once; a heading that names no file (a Markdown heading, a missing file, a relative
    // path) is passed over.
    expect(found.files).toEqual([memory, soul, extra, skill, bundled]);
    // With no prompt (a runtime that does not pass it), the bootstrap files still are.
    expect(promptFiles(undefined, ws, join(root, "home")).files).toEqual([memory, soul]);
  });

  it("headings before the Project Context section are OpenClaw's own text, not files; a heading is a whole line", () => {
    const root = tempDir("provenant-prompt-files-");
    const elsewhere = touch(join(root, "elsewhere.md"));
    const ws = join(root, "ws");
    expect(promptFiles(prompt({ before: `## ${elsewhere}` }), ws, root).files).toEqual([]);
    expect(promptFiles(`No context section.\n## ${elsewhere}\n`, ws, root).files).toEqual([]);
    expect(promptFiles(prompt({ context: [{ path: elsewhere, text: "" }] }), ws, root).files).toEqual([elsewhere]);
    expect(promptFiles(`\n# Project Context\n## ${elsewhere}\n`, ws, root).files).toEqual([elsewhere]);
    // A Windows line end or a trailing space is not part of the path.
    expect(promptFiles(`x\n# Project Context\n## ${elsewhere} \r\n`, ws, root).files).toEqual([elsewhere]);
    expect(promptFiles(prompt({ context: [{ path: join(root, "other.md"), text: `see ## ${elsewhere}` }] }), ws, root).files).toEqual([]);
  });

  it("a skill's location is XML text: its escapes are undone, and a NUL byte names nothing", () => {
    const root = tempDir("provenant-prompt-files-");
    const odd = touch(join(root, `a<b>"c'd&e`, "SKILL.md"));
    const escaped = odd.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&apos;");
    expect(promptFiles(prompt({ skills: [escaped, `${odd}\u0000`] }), join(root, "ws"), root).files).toEqual([odd]);
  });

  it("past MAX_PROMPT_FILES files the rest are not looked at, and the caller is told", () => {
    const root = tempDir("provenant-prompt-files-");
    const many = Array.from({ length: MAX_PROMPT_FILES + 1 }, (_, i) => touch(join(root, `f${i}.md`)));
    const found = promptFiles(prompt({ context: many.map((path) => ({ path, text: "" })) }), join(root, "ws"), root);
    expect(found.files).toHaveLength(MAX_PROMPT_FILES);
    expect(found.overflow).toBe(true);
    // The same file named twice counts once.
    expect(promptFiles(prompt({ context: [...many.slice(0, 3), ...many.slice(0, 3)].map((path) => ({ path, text: "" })) }), join(root, "ws"), root).files).toHaveLength(3);
  });
});

describe("where the running OpenClaw is installed", () => {
  it("is the nearest directory above the program named openclaw in its package.json, reached directly and through a link", () => {
    const root = tempDir("provenant-openclaw-root-");
    const pkg = join(root, "lib", "node_modules", "openclaw");
    touch(join(pkg, "package.json"), JSON.stringify({ name: "openclaw", bin: { openclaw: "openclaw.mjs" } }));
    const entry = touch(join(pkg, "openclaw.mjs"));
    touch(join(pkg, "dist", "package.json"), JSON.stringify({ type: "module" }));
    const inner = touch(join(pkg, "dist", "entry.js"));
    expect(openclawInstallations(entry)).toEqual([pkg]);
    expect(openclawInstallations(inner)).toEqual([pkg]);
    // A global bin link: the link's own directory holds no package; the file it leads to does.
    mkdirSync(join(root, "bin"));
    symlinkSync(entry, join(root, "bin", "openclaw"));
    expect(openclawInstallations(join(root, "bin", "openclaw"))).toEqual([pkg]);
    // A link to the package directory (pnpm's): both spellings.
    symlinkSync(pkg, join(root, "linked"));
    expect(openclawInstallations(join(root, "linked", "openclaw.mjs"))).toEqual([join(root, "linked"), pkg]);
  });

  it("is looked for twelve directories up, no further", () => {
    const root = tempDir("provenant-openclaw-root-");
    touch(join(root, "package.json"), JSON.stringify({ name: "openclaw" }));
    const levels = (n: number) => join(root, ...Array.from({ length: n }, (_, i) => `d${i}`), "main.js");
    expect(openclawInstallations(touch(levels(11)))).toEqual([root]);
    expect(openclawInstallations(touch(levels(12)))).toEqual([]);
  });

  it("is nothing when no such package is above the program, the search stopping at the node_modules holding it", () => {
    const root = tempDir("provenant-openclaw-root-");
    touch(join(root, "package.json"), JSON.stringify({ name: "openclaw" }));
    const other = touch(join(root, "node_modules", "other", "cli.js"));
    touch(join(root, "node_modules", "other", "package.json"), JSON.stringify({ name: "other" }));
    expect(openclawInstallations(other)).toEqual([]);
    touch(join(root, "app", "package.json"), "not json");
    touch(join(root, "app", "lib", "package.json"), "null");
    expect(openclawInstallations(touch(join(root, "app", "main.js")))).toEqual([root]);
    expect(openclawInstallations(touch(join(root, "app", "lib", "main.js")))).toEqual([root]);
    expect(openclawInstallations(undefined)).toEqual([]);
    expect(openclawInstallations("")).toEqual([]);
  });
});
