import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";

// OpenClaw removes a plugin's files once it has loaded them (its plugin captures are pruned, a
// config hot reload among the triggers). The built shell parser must then still parse scripts it
// has never seen, the parts the package loads at parse time (its grammar, `$(...)` and `${...}`
// parsed by itself again) among them.
describe("the built shell parser", () => {
  it("parses new scripts after its files are gone: it was loaded whole, with no package beside it", () => {
    const built = join(process.cwd(), "dist/core");
    expect(existsSync(join(built, "bash-parser.cjs")), "run npm run build first").toBe(true);
    const core = join(tempDir("provenant-bundle-"), "core");
    mkdirSync(core);
    for (const file of ["bash-ast.js", "bash-parser.cjs"]) copyFileSync(join(built, file), join(core, file));
    const script = `
      const { parseShell } = await import(${JSON.stringify(join(core, "bash-ast.js"))});
      (await import("node:fs")).rmSync(${JSON.stringify(core)}, { recursive: true });
      const ast = parseShell('echo "$(cat a.txt)" \${x:-y} $((1 + 2)); for f in *.md; do cat "$f" | wc -l; done');
      console.log(JSON.stringify(ast).includes('"commandAST"') ? "parsed" : "no expansion");
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("parsed");
  });
});
