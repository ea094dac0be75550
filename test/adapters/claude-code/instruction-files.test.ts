import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nestedInstructionFiles, startInstructionFiles } from "../../../src/adapters/claude-code/instruction-files.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A user's machine in miniature: `home/`, `home/work/app` (the project), files written where named. */
function machine(files: Record<string, string>): { root: string; home: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), "provenant-instructions-"));
  made.push(root);
  const home = join(root, "home");
  const project = join(home, "work", "app");
  mkdirSync(project, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, home, project };
}

const inside = (root: string, files: readonly string[]) => files.filter((f) => f.startsWith(`${root}/`)).map((f) => f.slice(root.length + 1)).sort();

describe("the instruction files Claude Code loads at start", () => {
  it("the project's and every directory's above it, .claude/ and rules beneath, the user's own, and what each imports", () => {
    const { root, home, project } = machine({
      "home/work/app/CLAUDE.md": "Project.\nSee @docs/style.md and @~/notes/me.md, also @/etc/never-there.md.\n",
      "home/work/app/docs/style.md": "Style, and @../third_party/lib/GUIDE.md.\n",
      "home/work/app/third_party/lib/GUIDE.md": "vendored\n",
      "home/work/app/CLAUDE.local.md": "mine\n",
      "home/work/app/AGENTS.md": "agents\n",
      "home/work/app/.claude/CLAUDE.md": "x\n",
      "home/work/app/.claude/rules/a.md": "rule\n",
      "home/work/app/.claude/rules/deep/b.md": "rule with @../../../imported-by-rule.txt\n",
      "home/work/app/imported-by-rule.txt": "t\n",
      "home/work/app/.claude/rules/not-a-rule.txt": "ignored\n",
      "home/work/CLAUDE.md": "parent\n",
      "home/notes/me.md": "from home\n",
      "home/.claude/CLAUDE.md": "user\n",
      "home/.claude/rules/u.md": "user rule\n",
      "home/work/app/src/CLAUDE.md": "nested: loaded with a file beneath, not at start\n",
      "home/work/app/.claude/skills/release/SKILL.md": "---\ndescription: cut a release\n---\n",
      "home/work/app/.claude/skills/release/notes.md": "read only when the skill asks for it\n",
      "home/work/app/.claude/skills/README.md": "not a skill\n",
      "home/work/app/.claude/commands/deploy.md": "deploy\n",
      "home/work/app/.claude/commands/db/migrate.md": "namespaced\n",
      "home/.claude/skills/mine/SKILL.md": "user skill\n",
      "home/.claude/commands/c.md": "user command\n",
      "home/work/app/.claude/agents/reviewer.md": "---\ndescription: reviews\n---\n",
      "home/work/app/.claude/output-styles/terse.md": "terse\n",
      "home/.claude/agents/mine.md": "user agent\n",
    });
    const loaded = startInstructionFiles(project, home);
    expect(loaded.incomplete).toBeNull();
    expect(inside(root, loaded.files)).toEqual(
      [
        "home/work/app/CLAUDE.md",
        "home/work/app/docs/style.md",
        "home/work/app/third_party/lib/GUIDE.md",
        "home/work/app/CLAUDE.local.md",
        "home/work/app/AGENTS.md",
        "home/work/app/.claude/CLAUDE.md",
        "home/work/app/.claude/rules/a.md",
        "home/work/app/.claude/rules/deep/b.md",
        "home/work/app/imported-by-rule.txt",
        "home/work/CLAUDE.md",
        "home/notes/me.md",
        "home/.claude/CLAUDE.md",
        "home/.claude/rules/u.md",
        "home/work/app/.claude/skills/release/SKILL.md",
        "home/work/app/.claude/commands/deploy.md",
        "home/work/app/.claude/commands/db/migrate.md",
        "home/.claude/skills/mine/SKILL.md",
        "home/.claude/commands/c.md",
        "home/work/app/.claude/agents/reviewer.md",
        "home/work/app/.claude/output-styles/terse.md",
        "home/.claude/agents/mine.md",
      ].sort(),
    );
    expect(new Set(loaded.files).size).toBe(loaded.files.length);
  });

  it("imports that loop end; a spelling with punctuation or a line anchor still names its file", () => {
    const { root, home, project } = machine({
      "home/work/app/CLAUDE.md": "(see @a.md), @b.md#intro and `@c.md`.\n",
      "home/work/app/a.md": "back to @CLAUDE.md and @a.md\n",
      "home/work/app/b.md": "b\n",
      "home/work/app/c.md": "c\n",
      "home/work/app/my notes.md": "spaced\n",
      "home/work/app/d.md": "d\n",
    });
    writeFileSync(join(project, "CLAUDE.md"), "(see @a.md), @b.md#intro and `@c.md`, @my\\ notes.md; an address a@d.md is not one.\n");
    expect(inside(root, startInstructionFiles(project, home).files)).toEqual(["home/work/app/CLAUDE.md", "home/work/app/a.md", "home/work/app/b.md", "home/work/app/c.md", "home/work/app/my notes.md"]);
  });

  it("a linked rules directory is walked, a loop of links ends, and past the bounds the set says it is incomplete", () => {
    const { root, home, project } = machine({ "home/shared-rules/r.md": "shared\n", "home/work/app/CLAUDE.md": "x\n" });
    mkdirSync(join(project, ".claude", "rules"), { recursive: true });
    symlinkSync(join(home, "shared-rules"), join(project, ".claude", "rules", "shared"));
    symlinkSync(join(project, ".claude", "rules"), join(home, "shared-rules", "loop"));
    const loaded = startInstructionFiles(project, home);
    expect(inside(root, loaded.files)).toContain("home/work/app/.claude/rules/shared/r.md");
    // A .claude/ that is itself a link (a dotfiles checkout) is entered.
    const linked = machine({ "home/dotfiles/claude/skills/s/SKILL.md": "skill\n" });
    symlinkSync(join(linked.home, "dotfiles", "claude"), join(linked.project, ".claude"));
    expect(inside(linked.root, startInstructionFiles(linked.project, linked.home).files)).toEqual(["home/work/app/.claude/skills/s/SKILL.md"]);

    const wide = machine(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`home/work/app/.claude/rules/d${i}/README`, "not a rule\n"])));
    expect(startInstructionFiles(wide.project, wide.home).incomplete).toMatch(/^more than 256 directories under .*\/rules to check$/);

    const many = machine(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`home/work/app/.claude/rules/r${i}.md`, "r\n"])));
    expect(startInstructionFiles(many.project, many.home).incomplete).toBe("more than 256 instruction files and imports to check");

    const large = machine({ "home/work/app/CLAUDE.md": `${"x".repeat(1024 * 1024)}\n@hidden.md\n`, "home/work/app/hidden.md": "h\n" });
    expect(startInstructionFiles(large.project, large.home).incomplete).toMatch(/CLAUDE\.md is too large to read for the files it imports$/);
    const fits = machine({ "home/work/app/CLAUDE.md": `${"x".repeat(1024 * 1024 - 12)}\n@hidden.md\n`, "home/work/app/hidden.md": "h\n" });
    expect(inside(fits.root, startInstructionFiles(fits.project, fits.home).files)).toEqual(["home/work/app/CLAUDE.md", "home/work/app/hidden.md"]);
  });

  it("the user's own files count where the project is not beneath the home directory", () => {
    // A sub-agent's definition counts too: Claude Code lists its description for the model (the Agent tool's).
    const { root, home } = machine({ "home/.claude/CLAUDE.md": "user\n", "home/.claude/AGENTS.md": "user agents\n", "home/.claude/rules/u.md": "rule\n", "home/.claude/agents/helper.md": "agent\n", "srv/app/CLAUDE.md": "app\n" });
    expect(inside(root, startInstructionFiles(join(root, "srv", "app"), home).files)).toEqual(["home/.claude/AGENTS.md", "home/.claude/CLAUDE.md", "home/.claude/agents/helper.md", "home/.claude/rules/u.md", "srv/app/CLAUDE.md"]);
  });

  it("256 files are all checked; one more makes the set incomplete", () => {
    const rules = (n: number) => machine(Object.fromEntries(Array.from({ length: n }, (_, i) => [`home/work/app/.claude/rules/r${i}.md`, "r\n"])));
    const full = rules(256);
    expect(startInstructionFiles(full.project, full.home)).toEqual({ files: expect.any(Array), incomplete: null });
    expect(startInstructionFiles(full.project, full.home).files).toHaveLength(256);
    const over = rules(257);
    expect(startInstructionFiles(over.project, over.home).incomplete).toBe("more than 256 instruction files and imports to check");
  });

  it("imports are followed ten deep, past Claude Code's five", () => {
    const chain = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`home/work/app/i${i}.md`, `@i${i + 1}.md\n`]));
    const { root, home, project } = machine({ ...chain, "home/work/app/CLAUDE.md": "@i0.md\n" });
    expect(inside(root, startInstructionFiles(project, home).files).sort()).toEqual(["home/work/app/CLAUDE.md", ...Array.from({ length: 10 }, (_, i) => `home/work/app/i${i}.md`)].sort());
  });
});

describe("the instruction files a file's call brings along", () => {
  it("those of the directories between the file and the start directory, with their imports", () => {
    const { root, home, project } = machine({
      "home/work/app/CLAUDE.md": "loaded at start\n",
      "home/work/app/pkg/CLAUDE.md": "pkg, see @guide.md\n",
      "home/work/app/pkg/guide.md": "guide\n",
      "home/work/app/pkg/sub/AGENTS.md": "sub\n",
      "home/work/app/pkg/sub/.claude/rules/r.md": "rule\n",
      "home/work/app/pkg/sub/leaf/x.ts": "code\n",
      "home/work/app/pkg/sub/.claude/skills/style/SKILL.md": "---\ndescription: found as the agent works in pkg/sub\n---\n",
      "home/work/app/other/CLAUDE.md": "not on the way\n",
      "home/work/app/other/.claude/skills/x/SKILL.md": "not on the way\n",
    });
    expect(inside(root, nestedInstructionFiles("pkg/sub/leaf/x.ts", project, home).files)).toEqual([
      "home/work/app/pkg/CLAUDE.md",
      "home/work/app/pkg/guide.md",
      "home/work/app/pkg/sub/.claude/rules/r.md",
      "home/work/app/pkg/sub/.claude/skills/style/SKILL.md",
      "home/work/app/pkg/sub/AGENTS.md",
    ]);
    expect(nestedInstructionFiles(join(project, "README.md"), project, home).files).toEqual([]);
    expect(nestedInstructionFiles("pkg", project, home).files).toEqual([]);
  });

  it("a file outside the start directory brings those up to the nearest directory above the start", () => {
    const { root, home, project } = machine({ "home/Downloads/CLAUDE.md": "downloaded\n", "home/Downloads/mail/x.eml": "m\n", "home/CLAUDE.md": "loaded at start\n" });
    expect(inside(root, nestedInstructionFiles(join(home, "Downloads", "mail", "x.eml"), project, home).files)).toEqual(["home/Downloads/CLAUDE.md"]);
    expect(inside(root, nestedInstructionFiles("../../Downloads/mail/x.eml", project, home).files)).toEqual(["home/Downloads/CLAUDE.md"]);
  });
});
