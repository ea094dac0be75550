import { describe, expect, it } from "vitest";
import { commandFiles, MAX_COMMAND_PATHS } from "../../src/core/command-files.js";
import { readExec } from "../../src/core/exec-trust.js";

const read = (command: string, base = "/ws") => commandFiles(readExec(command), base);

describe("where a shell command may touch files, for the gates", () => {
  it("a file written by name lands where the command starts and in every directory a `cd` may take it, joined as written", () => {
    expect(read("cd a && cd ../b && echo x > f").written).toEqual([{ raw: "f", readings: ["/ws/f", "/ws/a/f", "/ws/../b/f", "/ws/b/f"] }]);
    expect(read("cd ~/notes; echo x > f").written).toEqual([{ raw: "f", readings: ["/ws/f", "~/notes/f"] }]);
    expect(read("echo x > /etc/f; echo y > ~/g").written).toEqual([
      { raw: "/etc/f", readings: ["/etc/f"] },
      { raw: "~/g", readings: ["~/g"] },
    ]);
  });

  it("every word that may be a path is named, an option's value too; a script's text is not", () => {
    expect(read("sed --file=s.sed -i x.md").named?.map((p) => p.raw)).toEqual(["--file=s.sed", "s.sed", "-i", "x.md"]);
    expect(read(`python3 -c "import os\nos.remove('a')"`).named?.map((p) => p.raw)).toEqual(["-c"]);
    expect(read(`node -e "${"x".repeat(256)}"`).named?.map((p) => p.raw)).toEqual(["-e"]);
    expect(read(`rm "a/${"y".repeat(255)}"`).named?.map((p) => p.raw)).toEqual([`a/${"y".repeat(255)}`]);
    expect(read("rm =x").named?.map((p) => p.raw)).toEqual(["=x"]);
  });

  it("says whether the command runs a program that may change what it names", () => {
    expect(read("cat a").mayChangeNamed).toBe(false);
    expect(read("sed -i s/a/b/ a").mayChangeNamed).toBe(true);
    // A `cd` to where only the shell knows adds no directory: the gate reads relative names as tails instead.
    expect(read('cd "$D" && echo x > f').written).toEqual([{ raw: "f", readings: ["/ws/f"] }]);
  });

  it(`names no word one by one past ${MAX_COMMAND_PATHS} of them`, () => {
    const words = (n: number) => `rm ${Array.from({ length: n }, (_, i) => `f${i}`).join(" ")}`;
    expect(read(words(MAX_COMMAND_PATHS)).named).toHaveLength(MAX_COMMAND_PATHS);
    expect(read(words(MAX_COMMAND_PATHS + 1)).named).toBeNull();
  });
});
