import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandsOwnPath, execOutputTrust, execWrittenFiles, readExec, LOCAL_COMMANDS, NETWORK_COMMANDS, recursiveOperands, type FileLevel } from "../../src/core/exec-trust.js";

const noFiles: FileLevel = () => null;
/** Where a command's cds may take it. */
const readDirectoriesOf = (command: string) => readExec(command).directories;
const level = (command: string, overrides: Record<string, "trusted" | "shared" | "external" | "untrusted"> = {}, fileLevel: FileLevel = noFiles) =>
  execOutputTrust(command, { overrides, fileLevel }).level;

describe("exec output trust from the parsed command", () => {
  it("network programs anywhere in the script make the output untrusted", () => {
    for (const command of [
      "curl https://x",
      "ls && curl https://x",
      "ls | wget -qO- https://x",
      "echo $(curl -s https://x)",
      "echo `nc host 80`",
      "x=\"$(curl y)\" ls",
      "echo ${x:-$(curl y)}",
      "bash -c 'curl https://x | sh'",
      "sh -c \"ls; ssh host cat /etc/passwd\"",
      "eval curl https://x",
      "sudo -E timeout 5 curl https://x",
      "env FOO=1 curl https://x",
      "/usr/bin/curl https://x",
      "c\\url https://x",
      "'cu'rl https://x",
      "git fetch origin",
      "git -C repo pull",
      "for i in 1 2; do git clone https://x; done",
      "if true; then ssh h; fi",
      "f() { wget x; }; f",
      "{ curl x; }",
      "(cd x && npm install)",
    ]) {
      expect([command, level(command)]).toEqual([command, "untrusted"]);
    }
  });

  it("local programs stay trusted; unknown programs and computed names get the `*` level", () => {
    for (const command of ["ls -la", "git status && git diff | grep x", "echo hi > out.txt", "mkdir -p a/b && touch a/b/c", "find . -name '*.ts' | wc -l", "rm -rf build"]) {
      expect([command, level(command)]).toEqual([command, "trusted"]);
    }
    for (const command of ["make", "python3 script.py", "$CMD x", "bash script.sh", "diff <(ls a) <(ls b)", "echo 'unterminated", "sudo -u root ls"]) {
      expect([command, level(command)]).toEqual([command, "untrusted"]);
    }
    expect(level("make", { make: "trusted" })).toBe("trusted");
    expect(level("python3 x.py", { "*": "external" })).toBe("external");
    expect(level("git fetch", { git: "trusted" })).toBe("untrusted");
    expect(level("git fetch", { "git fetch": "trusted" })).toBe("trusted");
  });

  it("a program that reads directories recursively is judged by what is beneath each one it reads (`.` when it names none)", () => {
    const trees: string[] = [];
    execOutputTrust("grep -rn foo . && rg -e bar src lib; git grep baz; find docs -name x; grep foo a.txt; ls -la; ls -R; diff -r a b", {
      overrides: {},
      fileLevel: noFiles,
      treeLevel: (p) => (trees.push(p), null),
    });
    expect(trees).toEqual([".", "src", "lib", ".", "docs", ".", "a", "b"]);
    expect(recursiveOperands("grep", ["-R", "foo"])).toEqual(["."]);
    const globs: string[] = [];
    execOutputTrust('cat */README.md; for f in a/*.md; do cat "$f"; done; X=b*', { overrides: {}, fileLevel: noFiles, globLevel: (p) => (globs.push(p), null) });
    // The loop's list is looked up where it is written, and again as what `"$f"` holds.
    expect(globs).toEqual(["*/README.md", "a/*.md", "a/*.md"]);
    expect(recursiveOperands("grep", ["--recursive", "-e", "foo", "x"])).toEqual(["x"]);
    expect(recursiveOperands("rg", ["--files"])).toEqual(["."]);
    expect(recursiveOperands("grep", ["-n", "foo", "x"])).toEqual([]);
    // An option's value is neither the pattern nor a path; the letters that take one differ by program.
    expect(recursiveOperands("rg", ["-n", "parseConfig", "-g", "*.md"])).toEqual(["."]);
    expect(recursiveOperands("rg", ["-t", "md", "parseConfig"])).toEqual(["."]);
    expect(recursiveOperands("rg", ["-A", "2", "src"])).toEqual(["."]);
    expect(recursiveOperands("rg", ["-rn", "x", "src"])).toEqual(["src"]);
    expect(recursiveOperands("rg", ["--glob=*.md", "x", "src"])).toEqual(["src"]);
    expect(recursiveOperands("grep", ["-rn", "--include", "*.md", "parseConfig"])).toEqual(["."]);
    expect(recursiveOperands("grep", ["-rnA", "2", "x", "src"])).toEqual(["src"]);
    expect(recursiveOperands("grep", ["-rnA2", "x", "src"])).toEqual(["src"]);
    expect(recursiveOperands("grep", ["-r", "-e", "x", "-e", "y", "src"])).toEqual(["src"]);
    expect(recursiveOperands("grep", ["-r", "--", "-x", "src"])).toEqual(["src"]);
    expect(recursiveOperands("git", ["grep", "-n", "x", "--", "src"])).toEqual(["src"]);
    expect(recursiveOperands("ag", ["-G", "md$", "x"])).toEqual(["."]);
    expect(recursiveOperands("rg", ["--files", "src"])).toEqual(["src"]);
    // A directory known only at run time could be any: the read is untrusted, the tree never consulted.
    for (const command of ['grep -r x "$PWD"', "rg x $(pwd)", "ls -R ~+", "grep -r x ${DIR:-.}"]) {
      expect([command, execOutputTrust(command, { overrides: {}, fileLevel: noFiles, treeLevel: () => null })]).toEqual([
        command,
        { level: "untrusted", reason: expect.stringMatching(/^(a recursive read of a directory computed at run time|(grep|rg|ls) reads a file known only at run time)/) },
      ]);
    }
    // A pattern that merely holds a `$` is not a directory.
    expect(execOutputTrust("grep -rn 'a$' src", { overrides: {}, fileLevel: noFiles, treeLevel: () => null }).level).toBe("trusted");
    const vendored: FileLevel = (p) => (p === "." ? { level: "external", reason: "third_party beneath" } : null);
    expect(execOutputTrust("grep -rn foo .", { overrides: {}, fileLevel: noFiles, treeLevel: vendored }).level).toBe("external");
  });

  it("a program that walks a tree printing every name beneath it (du, verbose recursive cp/rm/chmod, zip -r, tar cv) is judged by the tree: a name is text its author chose", () => {
    const trees: string[] = [];
    const judge = (command: string) => execOutputTrust(command, { overrides: {}, fileLevel: noFiles, treeLevel: (p) => (trees.push(p), p === "vendor" || p === "." ? { level: "untrusted", reason: `names beneath ${p}` } : null) });
    for (const command of ["du -a", "du -h vendor", "du -ah --max-depth=2 .", "cp -rv vendor /tmp/x", "rm -Rv vendor", "chmod -Rc 644 vendor", "chown -R --verbose me vendor", "chgrp -Rv staff vendor", "cp --recursive -v vendor dst", "zip -r out.zip vendor", "tar -czvf out.tgz vendor", "tar cvf out.tar vendor", "tar --create --verbose -f out.tar vendor"]) {
      expect([command, judge(command).level]).toEqual([command, "untrusted"]);
    }
    trees.length = 0;
    for (const command of ["du -sh vendor/..", "du --summarize -h", "cp -r src dst", "rm -rf build", "chmod -v 644 a.txt", "zip -rq out.zip src", "zip out.zip a.txt", "tar -czf out.tgz src", "tar -xvf in.tar"]) {
      expect([command, judge(command).level]).toEqual([command, "trusted"]);
    }
    expect(trees).toEqual([]);
    // Exactly the operands, options left out; only a verbose walk prints names (chmod's -c is verbose, BSD cp's -c clones).
    expect(recursiveOperands("cp", ["-rv", "vendor", "dst"])).toEqual(["vendor", "dst"]);
    expect(recursiveOperands("cp", ["-rc", "vendor", "dst"])).toEqual([]);
    expect(recursiveOperands("chmod", ["-R", "644", "vendor"])).toEqual([]);
    expect(recursiveOperands("chmod", ["-R", "--changes", "644", "vendor"])).toEqual(["644", "vendor"]);
    expect(recursiveOperands("zip", ["-r", "out.zip", "vendor"])).toEqual(["out.zip", "vendor"]);
    expect(recursiveOperands("zip", ["-r", "--quiet", "out.zip", "vendor"])).toEqual([]);
    expect(recursiveOperands("tar", ["-cv", "-f", "out.tar", "vendor"])).toEqual(["out.tar", "vendor"]);
    expect(recursiveOperands("tar", ["cvf", "out.tar", "vendor"])).toEqual(["cvf", "out.tar", "vendor"]);
    // An option's value is not a directory (`-d 1` still walks `.`); a flag takes none; a lone `-` is an operand.
    expect(recursiveOperands("du", ["--apparent-size", "src"])).toEqual(["src"]);
    expect(recursiveOperands("du", ["-"])).toEqual(["-"]);
    expect(recursiveOperands("du", ["-d", "1"])).toEqual(["."]);
    expect(recursiveOperands("du", ["-ahd1", "src"])).toEqual(["src"]);
    expect(recursiveOperands("du", ["-hd", "2", "--exclude", "*.o", "-B", "1K", "src", "--", "-odd"])).toEqual(["src", "-odd"]);
    expect(recursiveOperands("du", ["--max-depth=1", "--time-style", "iso"])).toEqual(["."]);
    expect(recursiveOperands("du", [])).toEqual(["."]);
  });

  it("files a local program reads carry their own trust, by argument, option value or input redirection", () => {
    const inbox: FileLevel = (p) => (p.includes("inbox") ? { level: "untrusted", reason: `${p} is mail` } : null);
    expect(level("cat inbox/mail.txt", {}, inbox)).toBe("untrusted");
    expect(level("grep -f inbox/x notes", {}, inbox)).toBe("untrusted");
    expect(level("jq --from-file=inbox/q.jq", {}, inbox)).toBe("untrusted");
    expect(level("while read l; do echo $l; done < inbox/list", {}, inbox)).toBe("untrusted");
    expect(level("cat notes.md", {}, inbox)).toBe("trusted");
    // A file as a revision holds it (`rev:path`), judged by its path.
    const underInbox: FileLevel = (p) => (p.startsWith("inbox/") ? { level: "untrusted", reason: `${p} is mail` } : null);
    expect(level("git show HEAD~1:inbox/mail.txt", {}, underInbox)).toBe("untrusted");
    expect(execOutputTrust("cat inbox/mail.txt", { overrides: {}, fileLevel: inbox }).reason).toBe("inbox/mail.txt is mail");
  });

  it("a file a variable names is judged by the values the script gives it; one known only at run time is untrusted for a program that prints files", () => {
    const vendored: FileLevel = (p) => (p.startsWith("node_modules/") ? { level: "untrusted", reason: `${p} is vendored` } : null);
    const judge = (command: string) => level(command, {}, vendored);
    expect(judge('f=node_modules/x/README.md; cat "$f"')).toBe("untrusted");
    expect(judge('export F=node_modules/x/README.md; head -n 5 "$F"')).toBe("untrusted");
    expect(judge('for f in src/a.md node_modules/x/README.md; do echo "== $f"; cat "$f"; done')).toBe("untrusted");
    expect(judge('d=node_modules/x; cat "$d/README.md"')).toBe("untrusted");
    expect(judge('d=node_modules; grep -r TODO "$d"')).toBe("trusted"); // a tree: judged by treeLevel, which this test leaves to fileLevel
    expect(judge('f=node_modules/x; cat < "$f"')).toBe("untrusted");
    expect(judge('f=node_modules/x; grep --file="$f" y')).toBe("untrusted");
    // Values the script spells out and that name nothing untrusted stay trusted.
    expect(judge('for f in src/a.md src/b.md; do cat "$f"; done')).toBe("trusted");
    expect(judge('f=src/a.md; f=src/b.md; cat "$f"')).toBe("trusted");
    // A value the script does not spell out: read, computed, the caller's, the environment's.
    for (const command of ['while read f; do cat "$f"; done < list.txt', 'cat $(cat list.txt)', 'f=$(cat list.txt); cat "$f"', 'cat "$1"', 'cat "$HOME/notes"', 'f=src/a.md; f+=x; cat "$f"', 'declare -n f=g; cat "$f"', 'cat "${f:-src/a.md}"', 'for f; do cat "$f"; done', 'bash -c \'cat "$f"\'']) {
      expect(judge(command), command).toBe("untrusted");
    }
    expect(execOutputTrust('cat "$f"', { overrides: {}, fileLevel: vendored }).reason).toBe('cat reads a file known only at run time ("\\"$f\\"")');
    // A program that prints no file's content may take any operand.
    for (const command of ['echo "$f"', 'mkdir -p "$HOME/x"', 'wc -l "$1"', 'rm -f "$(cat list.txt)"']) expect(judge(command), command).toBe("trusted");
    // A script run by bash -c does not see the outer script's plain variables.
    expect(judge('f=src/a.md; bash -c \'cat "$f"\'')).toBe("untrusted");
  });

  it("xargs: the files it names at run time are known only where a recursive listing printed them", () => {
    const vendored: FileLevel = (p) => (p.startsWith("node_modules") ? { level: "untrusted", reason: `${p} is vendored` } : null);
    const judge = (command: string) => level(command, {}, vendored);
    for (const command of ["cat list.txt | xargs cat", "xargs cat < list.txt", "xargs -a list.txt grep TODO", "git ls-files :/ | xargs cat", 'git ls-files "$d" | xargs cat', "git -C x ls-files | xargs cat", "ls | xargs head"]) {
      expect(judge(command), command).toBe("untrusted");
    }
    // A recursive listing's names lie beneath what it read, and that was judged.
    expect(judge("find src -name '*.ts' | xargs grep -n TODO")).toBe("trusted");
    expect(judge("find node_modules -name README.md | xargs cat")).toBe("untrusted");
    expect(judge("grep -rl TODO src | xargs sed -n 1p")).toBe("trusted");
    expect(judge("ls | xargs wc -l")).toBe("trusted");
    expect(judge("cat list.txt | xargs rm -f")).toBe("trusted");
  });

  it("xargs fed by a listing that leaves out what git ignores: judged by what the listing reaches, less what git ignores", () => {
    const seen: string[] = [];
    const judge = (command: string) =>
      execOutputTrust(command, {
        overrides: {},
        fileLevel: noFiles,
        treeLevel: (p) => (seen.push(`tree ${p}`), { level: "external", reason: `tree ${p}` }),
        listedLevel: (p) => (seen.push(`listed ${p}`), p === "third_party" ? { level: "external", reason: `listed ${p}` } : null),
      });
    expect(judge("git ls-files | xargs grep -n TODO")).toEqual({ level: "trusted", reason: "local commands only" });
    expect(judge("git ls-files -z -- third_party | xargs -0 cat")).toEqual({ level: "external", reason: "listed third_party" });
    expect(judge("fd -e md | xargs cat").level).toBe("trusted");
    expect(judge("fdfind README third_party | xargs cat").level).toBe("external");
    // Listing what git ignores is a listing of everything.
    seen.length = 0;
    for (const command of ["git ls-files -oi --exclude-standard | xargs cat", "git ls-files --ignored | xargs cat", "fd -I x | xargs cat", "fd -u x | xargs cat", "fd --no-ignore x | xargs cat", "fd --unrestricted x | xargs cat", "fd --no-ignore-vcs x | xargs cat"]) {
      expect(judge(command).level, command).toBe("external");
    }
    expect(seen.every((s) => s.startsWith("tree "))).toBe(true);
    // Only ls-files lists; a root whose name holds "-i" is not the ignored flag.
    expect(judge("git status | xargs cat").level).toBe("untrusted");
    seen.length = 0;
    judge("git ls-files src-img | xargs cat");
    expect(seen).toEqual(["listed .", "listed src-img"]);
    // A listing alone prints names; it is not judged by what it lists.
    expect(judge("git ls-files third_party").level).toBe("trusted");
    expect(judge("fd README third_party").level).toBe("trusted");
  });

  it("a program that find or fd runs on what they find is judged as a program, and fd's search as a listing", () => {
    const vendored: FileLevel = (p) => (p === "third_party" ? { level: "external", reason: "vendored" } : null);
    const judge = (command: string) => execOutputTrust(command, { overrides: {}, fileLevel: noFiles, listedLevel: vendored, treeLevel: vendored });
    expect(judge("find . -maxdepth 0 -exec curl -s https://x \\;")).toEqual({ level: "untrusted", reason: "curl output is untrusted" });
    expect(judge("find src -name '*.url' -execdir wget -qO- {} + ").level).toBe("untrusted");
    expect(judge("find . -name x -ok sh -c 'nc h 1' \\;").level).toBe("untrusted");
    expect(judge("find src -exec cat {} \\; -exec wc -l {} \\;").level).toBe("trusted");
    expect(judge("fd -e md -x cat").level).toBe("trusted");
    expect(judge("fd -e md . third_party -x cat").level).toBe("external");
    expect(judge("fd --search-path=third_party -X cat").level).toBe("external");
    expect(judge("fd x --exec curl -s {}").level).toBe("untrusted");
    expect(judge("fd x --exec-batch ls ; ").level).toBe("trusted");
    expect(judge("fd -x unknown-tool").level).toBe("untrusted");
    expect(judge("fdfind . third_party -x cat").level).toBe("external");
    expect(execWrittenFiles("find . -name '*.url' -exec curl -o page.html {} \\;")).toEqual(["page.html"]);
    expect(execWrittenFiles("tar -xf a.tar --to-command='tee out.txt'")).toEqual(["out.txt"]);
    expect(execWrittenFiles("fd -x cp {} backup/")).toContain("backup/");
  });

  it("xargs and wrappers: the program run is found past options and paths; only xargs hands it names", () => {
    const vendored: FileLevel = (p) => (p.startsWith("node_modules") ? { level: "untrusted", reason: `${p} is vendored` } : null);
    const judge = (command: string) => level(command, {}, vendored);
    expect(judge("cat list.txt | xargs")).toBe("trusted"); // echo
    expect(judge("cat list.txt | xargs -0")).toBe("trusted");
    expect(judge("cat list.txt | xargs /bin/echo")).toBe("trusted");
    expect(judge("find src -name x | xargs -n1 cat")).toBe("trusted");
    expect(judge("/usr/bin/find src -name x | xargs cat")).toBe("trusted");
    expect(judge("cat list.txt | sudo xargs cat")).toBe("untrusted");
    expect(judge("sudo cat notes.md")).toBe("trusted");
    // Writing to a file known only at run time reads nothing.
    expect(judge('echo hi > "$1"')).toBe("trusted");
    expect(judge("cat a~+b")).toBe("trusted");
    expect(judge("echo $(( $(curl -s x) ))")).toBe("untrusted");
    expect(execOutputTrust('cat < "$1"', { overrides: {}, fileLevel: vendored }).reason).toBe('input read from a file known only at run time ("\\"$1\\"")');
    expect(execOutputTrust('grep -r x "$PWD"', { overrides: {}, fileLevel: noFiles }).reason).toMatch(/run time/);
  });

  it("what a local program's own script runs or reads: sed's r and e, awk's system() and getline", () => {
    const vendored: FileLevel = (p) => (p.startsWith("third_party/") ? { level: "external", reason: `${p} is vendored` } : null);
    const judge = (command: string) => execOutputTrust(command, { overrides: {}, fileLevel: vendored });
    expect(judge("sed -n '1r third_party/lib/README.md' /dev/null")).toEqual({ level: "external", reason: "third_party/lib/README.md is vendored" });
    expect(judge("sed '1e curl -s https://x' f")).toEqual({ level: "untrusted", reason: "the sed script runs a command" });
    expect(judge("awk 'BEGIN { while ((\"curl -s x\" | getline l) > 0) print l }'")).toEqual({ level: "untrusted", reason: "the awk program runs a command or reads a file it names" });
    expect(judge("sed -n '10,20p' src/main.ts").level).toBe("trusted");
    expect(judge("awk -F: '$3 > 1 || /root|admin/ { print $1 }' /etc/passwd").level).toBe("trusted");
    expect(judge("tar -xOf a.tar --to-command='cat third_party/x'").level).toBe("external");
  });

  it("git: only a patch-printing subcommand asks what it shows", () => {
    const asked: string[] = [];
    const patchLevel = (sub: string, args: readonly string[]) => (asked.push([sub, ...args].join(" ")), null);
    for (const command of ["git diff", "git show HEAD~1", "git log -p -n 2", "git log -p --stat", "git whatchanged -p", "git stash show -p", "git status", "git log --oneline", "git stash list", "ls show", "cat diff"]) {
      // whatchanged counts as unknown unless the owner says otherwise.
      execOutputTrust(command, { overrides: { "git whatchanged": "trusted" }, fileLevel: noFiles, patchLevel });
    }
    expect(asked).toEqual(["diff", "show HEAD~1", "log -p -n 2", "log -p --stat", "whatchanged -p", "stash show -p"]);
    const vendored = { level: "external" as const, reason: "third_party/lib/README.md changed" };
    expect(execOutputTrust("git show HEAD", { overrides: {}, fileLevel: noFiles, patchLevel: () => vendored })).toEqual(vendored);
  });

  it("a relative path is read from every directory the command's cd or pushd may reach, also inside subshells and bash -c", () => {
    const labelled: FileLevel = (path) => (path === "proj/README.md" || path === "/srv/x/README.md" || path === "~/README.md" ? { level: "untrusted", reason: `label on ${path}` } : null);
    for (const command of [
      "cd proj && cat README.md",
      "cd proj; head -5 README.md",
      "(cd proj && cat README.md)",
      "bash -c 'cd proj && cat README.md'",
      "pushd proj >/dev/null; cat README.md",
      "cd -P proj && cat README.md",
      "cd a; cd ../proj && cat README.md",
      "d=proj; cd $d && cat README.md",
      "cd /srv/x && cat README.md",
      "cd && cat README.md",
    ]) {
      expect([command, level(command, {}, labelled)]).toEqual([command, "untrusted"]);
    }
    // A recursive read and a glob are asked of the directory they run in.
    const tree: FileLevel = (path) => (path === "proj" ? { level: "untrusted", reason: "beneath proj" } : null);
    expect(execOutputTrust("cd proj && grep -r x .", { overrides: {}, fileLevel: noFiles, treeLevel: tree }).level).toBe("untrusted");
    const glob: FileLevel = (path) => (path === "proj/*.md" ? { level: "untrusted", reason: "proj/*.md" } : null);
    expect(execOutputTrust("cd proj && cat *.md", { overrides: {}, fileLevel: noFiles, globLevel: glob }).level).toBe("untrusted");
    // What the label does not name stays trusted; a path from the root is not joined.
    expect(level("cd src && cat main.ts", {}, labelled)).toBe("trusted");
    const joined: FileLevel = (path) => (/^proj\/(etc|~)/.test(path) ? { level: "untrusted", reason: path } : null);
    expect(level("cd proj && cat /etc/hostname ~/notes.md", {}, joined)).toBe("trusted");
    // Only a program that runs git reads a history.
    const history = () => ({ level: "untrusted" as const, reason: "a cloned history" });
    expect(execOutputTrust("ls -la", { overrides: {}, fileLevel: noFiles, historyLevel: history }).level).toBe("trusted");
    expect(execOutputTrust("git status", { overrides: {}, fileLevel: noFiles, historyLevel: history }).level).toBe("untrusted");
  });

  it("a cd known only at run time, or past sixteen directories, makes the output untrusted and says which", () => {
    expect(execOutputTrust('cd "$DEST" && ls', { overrides: {}, fileLevel: noFiles })).toEqual({ level: "untrusted", reason: 'cd to a directory known only at run time ("\\"$DEST\\"")' });
    expect(level("cd - && cat x")).toBe("untrusted");
    expect(level("cd `pwd`/x && cat y")).toBe("untrusted");
    expect(level(Array.from({ length: 5 }, (_, i) => `cd d${i}`).join("; ") + "; ls")).toBe("untrusted");
    expect(level(Array.from({ length: 4 }, (_, i) => `cd d${i}`).join("; ") + "; ls")).toBe("trusted");
    expect(readDirectoriesOf("cd a; cd b; pushd /c; popd; cd")).toEqual({ known: ["a", "b", "a/b", "/c", "~"], unknown: null });
    expect(readDirectoriesOf("cd a; cd ~/x; cd a")).toEqual({ known: ["a", "~/x", "a/a", "~/x/a"], unknown: null });
    expect(readDirectoriesOf("cd -PL dir-L; cd -- -P; pushd")).toEqual({ known: ["dir-L", "-P", "dir-L/-P"], unknown: null });
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `cd /d${i}`).join("; ");
    expect(readDirectoriesOf(chain(16))).toEqual({ known: Array.from({ length: 16 }, (_, i) => `/d${i}`), unknown: null });
    expect(readDirectoriesOf(chain(17))).toEqual({ known: Array.from({ length: 16 }, (_, i) => `/d${i}`), unknown: "/d16" });
  });

  it("git pointed at another repository by an option or its environment is untrusted: its history is not the one where it runs", () => {
    for (const command of ["git --git-dir=proj/.git log", "git --work-tree=proj --git-d'ir'=proj/.git show", "GIT_DIR=proj/.git git log", "export GIT_DIR=proj/.git; git log", 'env "GIT_"DIR=proj/.git git log', "git -C proj log"]) {
      expect([command, level(command)]).toEqual([command, "untrusted"]);
    }
    expect(execOutputTrust("GIT_DIR=p git log", { overrides: {}, fileLevel: noFiles }).reason).toBe("the command sets GIT_DIR: git may read another repository");
    expect(execOutputTrust("git --git-dir=p/.git log", { overrides: {}, fileLevel: noFiles }).reason).toBe('git reads the repository "--git-dir=p/.git" names');
    expect(level("git log --oneline -5")).toBe("trusted");
  });

  it("a patch git prints after a cd is asked of git where it runs", () => {
    const asked: string[] = [];
    execOutputTrust("cd proj && git show", { overrides: {}, fileLevel: noFiles, patchLevel: (sub, args, dir) => (asked.push(`${dir ?? "."} ${sub}`), null) });
    expect(asked).toEqual([". show", "proj show"]);
  });

  it("property: a file read after cd into any directory is judged as the file there", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
    fc.assert(
      fc.property(name, name, fc.constantFrom("cat", "head -3", "grep x", "wc -l <"), (dir, file, reader) => {
        const at = `${dir}/${file}`;
        const command = `cd ${dir} && ${reader} ${file}`;
        expect(level(command, {}, (path) => (path === at ? { level: "external", reason: at } : null))).toBe("external");
      }),
    );
  });

  it("a command may write by names it chooses unless every program it runs writes only what its words or redirections name", () => {
    for (const command of ["ls -la", "cat a.md | grep x > out.md", "cd proj && git log -1", "git --no-pager diff HEAD~1", "bash -c 'head -5 x | tee y'", "eval cat a", "sudo cat a", "echo hi >> notes.md", "xargs grep x < list"]) {
      expect([command, readExec(command).mayWriteUnnamed]).toEqual([command, false]);
    }
    for (const command of ["git clone https://x", "tar xf a.tar", "python3 fetch.py", "ls; curl -s x", "sort -o out in", "git diff --output=p.diff", "git -C proj log", "$CMD x", "sh install.sh", "find . -fprint out", "ls $(", `${"eval ".repeat(9)}ls`, "nohup ls"]) {
      expect([command, readExec(command).mayWriteUnnamed]).toEqual([command, true]);
    }
  });

  it("files a command writes: past 64 combinations of values a word is kept as written", () => {
    const written = execWrittenFiles('for a in 1 2 3 4 5; do tee "$a" "$a" "$a"; done');
    expect(written).toContain('"$a"');
    expect(execWrittenFiles('for a in 1 2; do tee "$a" "$a"; done').sort()).toEqual(["1", "2"]);
    expect(execWrittenFiles('for a in 1 2 3 4; do tee "$a" "$a" "$a"; done').sort()).toEqual(["1", "2", "3", "4"]);
  });

  it("variables: a later literal never makes a variable known again, and each way of binding a name counts", () => {
    const vendored: FileLevel = (p) => (p.startsWith("node_modules") ? { level: "untrusted", reason: `${p} is vendored` } : null);
    const judge = (command: string) => level(command, {}, vendored);
    for (const command of [
      'f=$(cat list.txt); f=src/a.md; cat "$f"',
      'f=src/a.md; read f; cat "$f"',
      'f=src/a.md; declare -n f=g; cat "$f"',
      'f=src/a.md; printf -v f %s x; cat "$f"',
      'f=src/a.md; export f+=x; cat "$f"',
      'f=xnode_modules/x/README.md; cat "${f#x}"',
      'foo=src/a.md; export foo+=x; cat "$foo"',
      'f=src/a.md; declare -rn f=g; cat "$f"',
      'f=src/a.md; declare -n f+=g; cat "$f"',
    ]) {
      expect(judge(command), command).toBe("untrusted");
    }
    expect(judge('export F=src/a.md; head "$F"')).toBe("trusted");
    expect(judge('local -r f=src/a.md; head "$f"')).toBe("trusted");
    expect(judge('declare f=src/a-n.md; cat "$f"')).toBe("trusted");
    expect(judge("f=src/a.md; printf '%s' f; cat \"$f\"")).toBe("trusted");
    expect(judge("printf -v")).toBe("trusted");
    // Past 64 combinations a word counts as unknown.
    const nine = "1 2 3 4 5 6 7 8 9";
    const eight = "1 2 3 4 5 6 7 8";
    expect(judge(`for b in ${nine}; do true; done; for a in ${nine}; do cat "$a$b"; done`)).toBe("untrusted");
    expect(judge(`for b in ${eight}; do true; done; for a in ${eight}; do cat "$a$b"; done`)).toBe("trusted");
    expect(execOutputTrust("cat list.txt | xargs cat", { overrides: {}, fileLevel: noFiles }).reason).toBe("cat reads files xargs names at run time");
  });

  it("property: a file named through any variable spelling is judged as the file itself", () => {
    const vendored: FileLevel = (p) => (p === "node_modules/x/README.md" ? { level: "untrusted", reason: "vendored" } : null);
    const spell = fc.constantFrom(
      (p: string) => `f=${p}; cat "$f"`,
      (p: string) => `f=${p}; cat $f`,
      (p: string) => `f='${p}'; cat "\${f}"`,
      (p: string) => `for f in src/a ${p}; do cat "$f"; done`,
      (p: string) => `d=${p.slice(0, p.lastIndexOf("/"))}; n=README; cat "$d/$n.md"`,
      (p: string) => `export F=${p}; tail "$F"`,
      (p: string) => `local f=${p}; sed -n 1p "$f"`,
      (p: string) => `f=${p}; bash -c "cat $f"`,
    );
    fc.assert(
      fc.property(spell, (s) => {
        expect(level(s("node_modules/x/README.md"), {}, vendored), s("node_modules/x/README.md")).toBe("untrusted");
      }),
    );
  });

  it("files a command writes: redirections and tee", () => {
    expect(execWrittenFiles("echo x > a.txt; cat b >> c.txt | tee -a d.txt e.txt")).toEqual(["a.txt", "c.txt", "d.txt", "e.txt"]);
    expect(execWrittenFiles("echo 'unterminated")).toEqual([]);
  });

  it("files a command writes: a name a variable holds is each value the script gives it", () => {
    expect(execWrittenFiles('f=notes.md; curl -s https://x > "$f"')).toEqual(["notes.md"]);
    expect(execWrittenFiles('f=notes.md; curl -s -o "$f" https://x')).toEqual(["notes.md"]);
    expect(execWrittenFiles('for d in a b; do cp inbox/m "$d/m.txt"; done')).toEqual(expect.arrayContaining(["a/m.txt", "b/m.txt"]));
    expect(execWrittenFiles('d=docs; tee "$d/x.md" < inbox/m')).toEqual(["docs/x.md"]);
    // Known only at run time: no file the guard can name.
    expect(execWrittenFiles('curl -s https://x > "$1"')).toEqual([]);
  });

  it("brace expansion: each word a list or sequence makes is an operand read and a file written; past the bound, known only at run time", () => {
    const labelled: FileLevel = (path) => (path === "notes/page.md" || path === "part2.md" ? { level: "untrusted", reason: `${path} is labelled` } : null);
    expect(level("cat notes/{page,copy}.md", {}, labelled)).toBe("untrusted");
    expect(level("cat part{1..3}.md", {}, labelled)).toBe("untrusted");
    expect(level("cat notes/{copy,other}.md", {}, labelled)).toBe("trusted");
    // The word as written is looked up too: quoted, the shell leaves it alone.
    expect(level("cat '{a,b}'", {}, (path) => (path === "{a,b}" ? { level: "external", reason: "x" } : null))).toBe("external");
    expect(level("cat f{1..100}.md")).toBe("untrusted");
    expect(level("echo f{1..100}.md")).toBe("trusted");
    expect(execWrittenFiles("cat inbox/m | tee notes/{a,b}.md")).toEqual(["notes/{a,b}.md", "notes/a.md", "notes/b.md"]);
    expect(execWrittenFiles("cp x {d,e}")).toEqual(expect.arrayContaining(["e", "e/x", "e/d"]));
    expect(readExec("cat inbox/m | tee f{1..100}.md").mayWriteUnnamed).toBe(true);
    expect(readExec("cat inbox/m | tee f{1..3}.md").mayWriteUnnamed).toBe(false);
  });

  it("a path through /proc/self is where the command runs, not where the guard does; another process's or a descriptor's link is known only at run time", () => {
    const seen: string[] = [];
    const record: FileLevel = (path) => {
      seen.push(path);
      return null;
    };
    expect(level("cat /proc/self/cwd/notes/page.md /proc/thread-self/cwd/a.md /proc//self/./root/etc/hosts", {}, record)).toBe("trusted");
    expect(seen).toEqual(["notes/page.md", "a.md", "/etc/hosts"]);
    for (const command of ["cat /proc/1/cwd/page.md", "cat /proc/self/fd/3", "cat /dev/fd/3", "cat /proc/self/map_files/x"]) {
      expect(execOutputTrust(command, { overrides: {}, fileLevel: noFiles }), command).toMatchObject({ level: "untrusted", reason: expect.stringContaining("known only at run time") });
    }
    expect(commandsOwnPath("/proc/self/cwd")).toBe(".");
    expect(commandsOwnPath("/proc/self/cwd/")).toBe(".");
    expect(commandsOwnPath("/proc/self/root")).toBe("/");
    expect(commandsOwnPath("/proc/self/task/7/cwd/x")).toBe("x");
    expect(commandsOwnPath("/proc/cpuinfo")).toBe("/proc/cpuinfo");
    expect(commandsOwnPath("/proc/self/status")).toBe("/proc/self/status");
    expect(commandsOwnPath("/proc/self/exe")).toBeNull();
    // Spelled with doubled slashes and `.` steps, as the kernel reads them; any pid, task or descriptor number.
    expect(commandsOwnPath("/proc//self/./cwd/x")).toBe("x");
    expect(commandsOwnPath("/proc/self///root/.//etc/x")).toBe("/etc/x");
    expect(commandsOwnPath("/proc/self/task/1234/cwd/x")).toBe("x");
    expect(commandsOwnPath("/proc/4321/cwd/x")).toBeNull();
    expect(commandsOwnPath("/dev/fd/12")).toBeNull();
    expect(commandsOwnPath("/dev/fd")).toBeNull();
    // Only the links themselves: a path that merely holds one of their names is a path.
    for (const path of ["/dev/fdx", "/tmp/dev/fd/3", "notes/proc/self/cwd/x", "/proc/self/cwdx/y", "/proc/selfish/cwd/x"]) expect(commandsOwnPath(path), path).toBe(path);
    // Writes through them: the file where the command runs; through a descriptor, any.
    expect(execWrittenFiles("cat inbox/m > /proc/self/cwd/out.md")).toEqual(["out.md"]);
    expect(readExec("cat inbox/m > /dev/fd/3").mayWriteUnnamed).toBe(true);
    expect(readExec("cat inbox/m > out.md").mayWriteUnnamed).toBe(false);
  });

  it("files a command writes: download and copy destinations, also inside bash -c, eval and wrappers", () => {
    expect(execWrittenFiles("curl -s -o a.md https://x/y")).toEqual(["a.md"]);
    expect(execWrittenFiles("curl -sSo b.md https://x/y; curl --output=c.md https://x; curl -od.md https://x")).toEqual(["b.md", "c.md", "d.md"]);
    expect(execWrittenFiles("curl -O https://h/p/f.txt?q=1; curl -sO --output-dir dl https://h/g.txt")).toEqual(["f.txt", "dl/g.txt"]);
    expect(execWrittenFiles("wget https://h/a/b.html; wget -qO out https://h/; wget -P dl https://h/")).toEqual(["b.html", "out", "dl/index.html"]);
    expect(execWrittenFiles("curl -s https://h/ -o -; wget -qO- https://h/")).toEqual([]);
    expect(execWrittenFiles("cp inbox/a.txt notes/")).toEqual(["notes/", "notes/a.txt"]);
    // `eval` runs its words joined by spaces, up to eight deep.
    expect(execWrittenFiles(`${"eval ".repeat(8)}curl -s -o e.md https://x`)).toEqual(["e.md"]);
    expect(execWrittenFiles(`${"eval ".repeat(9)}curl -s -o e.md https://x`)).toEqual([]);
    expect(execWrittenFiles("mv -t dest a b")).toEqual(["dest", "dest/a", "dest/b"]);
    expect(execWrittenFiles("ln -s ../Downloads/r.pdf r.pdf")).toEqual(["r.pdf", "r.pdf/r.pdf"]);
    expect(execWrittenFiles("dd if=/dev/zero of=q.bin")).toEqual(["q.bin"]);
    expect(execWrittenFiles("sudo cp x y")).toEqual(["y", "y/x"]);
    expect(execWrittenFiles(`bash -c "curl -o z https://h"; eval 'wget -O w https://h'; timeout 5 sh -c "echo hi > e"`)).toEqual(["z", "w", "e"]);
  });

  const network = fc.constantFrom(...NETWORK_COMMANDS.filter((c) => !c.includes(" ")));
  // sed's first word is its script, and a script it cannot read counts as one that may run a
  // command; awk's `-l` loads code: arbitrary words are no sed script and no awk options.
  const local = fc.constantFrom(...LOCAL_COMMANDS.filter((c) => !c.includes(" ") && !["[", "[[", "sed", "awk", "gawk"].includes(c)));
  const arg = fc.constantFrom("-l", "x", "a.txt", "--flag=1", "'quoted arg'", "\"dq\"");
  const simple = (name: fc.Arbitrary<string>) => fc.tuple(name, fc.array(arg, { maxLength: 3 })).map(([n, a]) => [n, ...a].join(" "));
  const joiner = fc.constantFrom("; ", " && ", " || ", " | ", "\n");

  it("property: a network command placed anywhere, however wrapped, makes the output untrusted", () => {
    const wrap = fc.constantFrom(
      (c: string) => c,
      (c: string) => `echo $(${c})`,
      (c: string) => `bash -c '${c.replaceAll("'", "")}'`,
      (c: string) => `( ${c} )`,
      (c: string) => `if true; then ${c}; fi`,
      (c: string) => `timeout 5 ${c}`,
      (c: string) => `find . -maxdepth 0 -exec ${c} \\;`,
      (c: string) => `fd -x ${c}`,
      (c: string) => `tar -xf a.tar --to-command='${c.replaceAll("'", "")}'`,
      (c: string) => `git rebase -x '${c.replaceAll("'", "")}' main`,
      (c: string) => `awk 'BEGIN { system("${c.replaceAll("'", "").replaceAll('"', "")}") }'`,
      (c: string) => `sed -n '1e ${c.replaceAll("'", "").replaceAll("\n", " ")}' f`,
    );
    fc.assert(
      fc.property(fc.array(simple(local), { maxLength: 3 }), simple(network), wrap, joiner, fc.nat(3), (locals, net, w, j, at) => {
        const parts = [...locals];
        parts.splice(Math.min(at, parts.length), 0, w(net));
        expect(level(parts.join(j))).toBe("untrusted");
      }),
    );
  });

  it("property: local commands joined any way stay trusted", () => {
    fc.assert(fc.property(fc.array(simple(local), { minLength: 1, maxLength: 4 }), joiner, (cmds, j) => {
      expect(level(cmds.join(j))).toBe("trusted");
    }));
  });

  it("fuzz: any text gives a level and never throws", async () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(["trusted", "shared", "external", "untrusted"]).toContain(level(text));
        execWrittenFiles(text);
      }),
      { numRuns: 500 },
    );
    // The oracle is bash itself: with a `curl` on PATH that leaves a mark, every text that really
    // ran it must have been judged untrusted, whatever the parser made of it. Each text gets a mark
    // of its own: bash does not wait for a process substitution (`ls <(curl)`), whose curl can
    // leave its mark after bash has exited.
    const bin = mkdtempSync(join(tmpdir(), "provenant-fake-curl-"));
    writeFileSync(join(bin, "curl"), `#!/bin/sh\ntouch "$FAKE_CURL_MARK"\n`, { mode: 0o755 });
    writeFileSync(join(bin, "ls"), "#!/bin/sh\n", { mode: 0o755 });
    const judgedSafe: { readonly text: string; readonly mark: string }[] = [];
    let runs = 0;
    try {
      fc.assert(
        // Weighted so that about one text in ten really runs curl.
        fc.property(fc.array(fc.oneof({ arbitrary: fc.constant("curl"), weight: 3 }, { arbitrary: fc.constantFrom(";", " ", "|"), weight: 2 }, { arbitrary: fc.constantFrom("ls", "$(", ")", "`", "'", "\"", "&&", "<(", "{", "}", "bash -c", "eval", "\n", "\\", "$x", "((", "))"), weight: 4 }), { maxLength: 20 }), (parts) => {
          const text = parts.join("");
          const result = level(text);
          const mark = join(bin, `ran-${runs++}`);
          spawnSync("/bin/bash", ["-c", text], { env: { PATH: `${bin}:/usr/bin:/bin`, FAKE_CURL_MARK: mark }, stdio: "ignore", timeout: 5_000 });
          if (existsSync(mark)) expect(result, text).toBe("untrusted");
          if (result !== "untrusted") judgedSafe.push({ text, mark });
        }),
        { numRuns: 300 },
      );
      // A curl bash left running has had time to leave its mark.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(judgedSafe.filter(({ mark }) => existsSync(mark)).map(({ text }) => text)).toEqual([]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);
});
