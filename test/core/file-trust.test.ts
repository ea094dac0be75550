import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FileLabelFormatError, FileLabels, MAX_VOUCHED_CHANGES } from "../../src/core/file-labels.js";
import { OPEN } from "../../src/core/change-windows.js";
import { FileTrustRules, validateFileTrustGlob } from "../../src/core/file-trust.js";

describe("fileTrust rules", () => {
  it("the defaults treat downloads, mail and inbox folders as untrusted, inside the workspace and out", () => {
    const rules = new FileTrustRules({});
    expect(rules.levelFor("inbox/email-from-vendor.txt", "/ws/inbox/email-from-vendor.txt")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/Downloads/invoice.pdf")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/downloads/x")?.level).toBe("untrusted");
    expect(rules.levelFor("mail/.hidden/x", "/ws/mail/.hidden/x")?.level).toBe("untrusted");
    expect(rules.levelFor("notes/offer.eml", "/ws/notes/offer.eml")?.level).toBe("untrusted");
    expect(rules.levelFor("notes/todo.md", "/ws/notes/todo.md")).toBeNull();
  });

  it("the defaults treat the rest of OpenClaw's media store as untrusted: a paired node's files and unpacked trees, the browser's files, media fetched for a message", () => {
    const rules = new FileTrustRules({});
    for (const file of ["tool-file-transfer/0c5e.log", "tool-file-transfer/dir-fetch-0c5e/etc/notes.md", "browser/7d1a.html", "outbound/report.pdf"]) {
      expect(rules.levelFor(null, `/home/u/.openclaw/media/${file}`)?.level).toBe("untrusted");
    }
    // A workspace folder of the owner's called media is the owner's.
    expect(rules.levelFor("media/logo.png", "/home/u/.openclaw/workspace/media/logo.png")).toBeNull();
  });

  it("the defaults treat the whole page OpenClaw's web_fetch saves in the temporary directory as untrusted", () => {
    const rules = new FileTrustRules({});
    expect(rules.levelFor(null, "/tmp/openclaw-web-fetch-4583d7f0e0e2ae4e.log")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/var/tmp/x/openclaw-web-fetch-0.log")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/tmp/openclaw-exec-4583d7f0e0e2ae4e.log")).toBeNull();
  });

  it("the defaults treat OpenClaw's own log as untrusted, wherever it rolls it, and the machine's logs with it", () => {
    const rules = new FileTrustRules({});
    for (const file of [
      "/tmp/openclaw/openclaw-2026-12-01.log",
      "/tmp/openclaw/openclaw-2026-12-01.3.log",
      "/tmp/openclaw/openclaw-work-2026-12-01.log",
      // The user-scoped directory it falls back to where /tmp/openclaw is not safe (macOS's temporary directory here).
      "/var/folders/q1/x7/T/openclaw-501/openclaw-2026-12-01.log",
      "/private/tmp/openclaw/openclaw-2026-12-01.log",
      "/var/log/nginx/access.log",
      "/var/log/auth.log",
      "/private/var/log/system.log",
    ]) {
      expect(rules.levelFor(null, file)?.level, file).toBe("untrusted");
    }
    // Thunderbird's IMAP folders, beside its local ones (Mail/).
    expect(rules.levelFor(null, "/home/u/.thunderbird/x1.default/ImapMail/imap.example.org/INBOX")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/.thunderbird/x1.default/Mail/Local Folders/Inbox")?.level).toBe("untrusted");
    // A project's notes of the same date are not its log.
    expect(rules.levelFor("notes/openclaw-2026-12-01.md", "/ws/notes/openclaw-2026-12-01.md")).toBeNull();
    expect(rules.levelFor("logs/build.log", "/ws/logs/build.log")).toBeNull();
    // A project's own var/log folder is the project's: only the machine's /var/log is.
    expect(rules.levelFor("var/log/dev.log", "/ws/var/log/dev.log")).toBeNull();
  });

  it("the defaults treat the rest of OpenClaw's temporary directory as untrusted: a browser trace at the name the model chose, a screenshot, a download", () => {
    const rules = new FileTrustRules({});
    for (const file of [
      "/tmp/openclaw/checkout-trace.zip",
      "/tmp/openclaw/downloads/invoice.pdf",
      "/tmp/openclaw/logbook/logbook-snapshot-0c5e.jpg",
      "/tmp/openclaw/openclaw-context-map-0c5e.png",
      "/private/tmp/openclaw/page.zip",
      "/var/folders/q1/x7/T/openclaw-501/trace.zip",
      "/private/var/folders/q1/x7/T/openclaw-501/trace.zip",
      "/tmp/openclaw-0/trace.zip",
      "/private/tmp/openclaw-501/shot.png",
    ]) {
      expect(rules.levelFor(null, file)?.level, file).toBe("untrusted");
    }
    // A folder that only begins like it, or the owner's project of a similar name, is not it.
    for (const file of ["/tmp/openclawx/notes.md", "/tmp/openclaw-notes/todo.md", "/home/u/src/openclaw-plugin/README.md", "/home/u/src/openclaw-2026/README.md"]) {
      expect(rules.levelFor(null, file), file).toBeNull();
    }
  });

  it("a log file the owner configured the host to write is untrusted, with its rotations, before the installation and the owner's own globs after", () => {
    const file = "/srv/logs/gate[way].log";
    const rules = new FileTrustRules({}, { logFiles: () => [file], installations: ["/srv"] });
    expect(rules.levelFor(null, file)).toEqual({ level: "untrusted", reason: `the host's configured log file (${file}) matches ${file}` });
    expect(rules.levelFor(null, "/srv/logs/gate[way].1.log")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/srv/logs/gate[way].12.log")?.level).toBe("untrusted");
    // Glob characters are its name; a sibling or a name that only starts like it is the installation's.
    for (const other of ["/srv/logs/gatew.log", "/srv/logs/gate[wax].1.log", "/srv/logs/gate[way].x.log", "/srv/logs/gate[way].x1.log", "/srv/logs/gate[way].1x.log", "/srv/logs/gate[way].1.txt", "/srv/logs/gate[way].log.bak"]) {
      expect(rules.levelFor(null, other)?.level, other).toBe("trusted");
    }
    // A file with no extension rotates to name.1.
    const bare = new FileTrustRules({}, { logFiles: () => ["/srv/gateway"] });
    expect(bare.levelFor(null, "/srv/gateway.1")?.level).toBe("untrusted");
    expect(bare.levelFor(null, "/srv/gateway.d/x")).toBeNull();
    // Only an absolute path names one.
    expect(new FileTrustRules({}, { logFiles: () => ["gateway.log"] }).levelFor("gateway.log", "/ws/gateway.log")).toBeNull();
    expect(new FileTrustRules({ "/srv/logs/**": "trusted" }, { logFiles: () => [file] }).levelFor(null, file)?.level).toBe("trusted");
  });

  it("a log file the host's configuration names once the rules are made is untrusted from the next look-up, and the one it named before stays untrusted", () => {
    // OpenClaw applies a change of logging.file while it runs: the new file holds what it logs from then on.
    let configured: string[] = [];
    let asked = 0;
    const rules = new FileTrustRules({}, { logFiles: () => (asked++, configured), installations: ["/srv"] });
    expect(rules.levelFor(null, "/srv/logs/a.log")?.level).toBe("trusted");
    configured = ["/srv/logs/a.log"];
    expect(rules.levelFor(null, "/srv/logs/a.log")).toEqual({ level: "untrusted", reason: "the host's configured log file (/srv/logs/a.log) matches /srv/logs/a.log" });
    configured = ["/srv/logs/b.log"];
    expect(rules.levelFor(null, "/srv/logs/b.1.log")?.level).toBe("untrusted");
    // What the host wrote to the first file is still there.
    expect(rules.levelFor(null, "/srv/logs/a.log")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/srv/logs/a.2.log")?.level).toBe("untrusted");
    configured = [];
    expect(rules.levelFor(null, "/srv/logs/b.log")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/srv/logs/c.log")?.level).toBe("trusted");
    // Asked at each look-up, not once.
    expect(asked).toBe(7);
  });

  it("the defaults treat a session's transcript, which holds all the session read, as untrusted: Claude Code's, OpenClaw's and provenant's own records", () => {
    const rules = new FileTrustRules({});
    expect(rules.levelFor(null, "/home/u/.claude/projects/-home-u-p/625e25a5-0fd9-40b2-b879-c8a8b06b149c.jsonl")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/.claude/projects/-home-u-p/625e25a5/subagents/agent-a1.jsonl")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/.openclaw/agents/main/sessions/01bd1c97.jsonl")?.level).toBe("untrusted");
    for (const file of ["agents/main/agent/openclaw-agent.sqlite", "agents/main/agent/openclaw-agent.sqlite-wal", "agents/main/agent/openclaw-agent.sqlite-shm", "state/openclaw.sqlite", "state/openclaw.sqlite-wal"]) {
      expect(rules.levelFor(null, `/home/u/.openclaw/${file}`)?.level).toBe("untrusted");
    }
    // What a team's other agents sent this one, read from its mailbox.
    expect(rules.levelFor(null, "/home/u/.claude/teams/release/inboxes/reviewer.json")?.level).toBe("untrusted");
    // A long MCP result Claude Code saved under the call's id; a Bash output's saved name is labelled instead.
    expect(rules.levelFor(null, "/home/u/.claude/projects/-home-u-p/625e25a5/tool-results/toolu_01AbC.txt")?.level).toBe("untrusted");
    expect(rules.levelFor(null, "/home/u/.claude/projects/-home-u-p/625e25a5/tool-results/bwulomouk.txt")).toBeNull();
    // provenant's own state: staged writes and held calls hold what tainted turns proposed.
    for (const held of ["blocked-writes/f44b.json", "approvals/pending/f18b3e84.json", "sig-kept/2026-11-29T16-55/SOUL.md"]) {
      expect(rules.levelFor(`.provenance/${held}`, `/ws/.provenance/${held}`)?.level).toBe("untrusted");
    }
    // The rest of its state, which a recursive grep of the workspace reads, is its own.
    expect(rules.levelFor(".provenance/watermarks.json", "/ws/.provenance/watermarks.json")).toBeNull();
    // The project's auto memory is judged by its labels, as before.
    expect(rules.levelFor(null, "/home/u/.claude/projects/-home-u-p/memory/MEMORY.md")).toBeNull();
  });

  it("the defaults treat what OpenClaw's session memory saved of a conversation as untrusted, and leave the agent's own daily note to its labels", () => {
    const rules = new FileTrustRules({});
    for (const saved of ["memory/2026-11-30-0930.md", "memory/2026-11-30-vendor-pitch.md", "memory/2026-11-30-0930-2.md"]) {
      expect(rules.levelFor(saved, `/ws/${saved}`)?.level, saved).toBe("untrusted");
    }
    expect(rules.levelFor("memory/2026-11-30.md", "/ws/memory/2026-11-30.md")).toBeNull();
    expect(rules.levelFor("memory/projects.md", "/ws/memory/projects.md")).toBeNull();
    // The owner's own entry, tried first, vouches for a note of the same shape.
    expect(new FileTrustRules({ "memory/2026-11-30-plan.md": "trusted" }).levelFor("memory/2026-11-30-plan.md", "/ws/memory/2026-11-30-plan.md")?.level).toBe("trusted");
  });

  it("the defaults treat files that arrived on an OpenClaw channel as untrusted: its store and the copies staged in the workspace", () => {
    const rules = new FileTrustRules({});
    expect(rules.levelFor(null, "/home/u/.openclaw/media/inbound/3f2a.txt")?.level).toBe("untrusted");
    const staged = `media/inbound/openclaw-staged-${"a".repeat(64)}/input-invoice.txt`;
    expect(rules.levelFor(staged, `/ws/${staged}`)?.level).toBe("untrusted");
    expect(rules.levelFor("media/outbound/chart.png", "/ws/media/outbound/chart.png")).toBeNull();
  });

  it("the defaults treat installed and vendored packages as external: a dependency's README cannot steer a command", () => {
    const rules = new FileTrustRules({});
    for (const path of ["node_modules/left-pad/README.md", "app/vendor/lib/x.go", "third_party/lib/README.md", ".venv/lib/python3.11/site-packages/x/__init__.py"]) {
      expect(rules.levelFor(path, `/ws/${path}`)?.level, path).toBe("external");
    }
    expect(rules.levelFor(null, "/usr/lib/node_modules/npm/README.md")?.level).toBe("external");
    expect(rules.levelFor("src/vendors.ts", "/ws/src/vendors.ts")).toBeNull();
    expect(new FileTrustRules({ "vendor/**": "trusted" }).levelFor("vendor/mine.go", "/ws/vendor/mine.go")?.level).toBe("trusted");
  });

  it("the host's own installation is trusted (its bundled skills and docs), less its own dependencies; the owner's globs still come first", () => {
    const root = "/usr/lib/node_modules/openclaw";
    const rules = new FileTrustRules({}, { installations: [root] });
    expect(rules.levelFor(null, `${root}/skills/weather/SKILL.md`)).toEqual({ level: "trusted", reason: `the host's installation (${root}/) matches ${root}/skills/weather/SKILL.md` });
    expect(rules.levelFor(null, `${root}/docs/gateway/configuration.md`)?.level).toBe("trusted");
    expect(rules.levelFor(null, `${root}/node_modules/left-pad/README.md`)).toEqual({
      level: "external",
      reason: `the host's installation's dependencies (${root}/node_modules/) matches ${root}/node_modules/left-pad/README.md`,
    });
    // A sibling package, and a directory whose name only starts like the root, are not the host's.
    expect(rules.levelFor(null, "/usr/lib/node_modules/openclaw-evil/SKILL.md")?.level).toBe("external");
    expect(rules.levelFor(null, "/usr/lib/node_modules/other/README.md")?.level).toBe("external");
    // Only an absolute path matches: a workspace's relative path that spells the root does not.
    expect(new FileTrustRules({}, { installations: ["/ws"] }).levelFor("Downloads/x", "/elsewhere/Downloads/x")?.level).toBe("untrusted");
    expect(new FileTrustRules({}, { installations: ["relative/openclaw"] }).levelFor(null, "relative/openclaw/skills/x")).toBeNull();
    // Glob characters in the root's name are its name, not a pattern.
    const odd = "/opt/open[claw]*";
    expect(new FileTrustRules({}, { installations: [odd] }).levelFor(null, `${odd}/node_modules/x/SKILL.md`)?.level).toBe("external");
    expect(new FileTrustRules({}, { installations: [odd] }).levelFor(null, "/opt/openc/skills/x/SKILL.md")).toBeNull();
    // A root written with trailing slashes is the same directory.
    expect(new FileTrustRules({}, { installations: [`${odd}//`] }).levelFor(null, `${odd}/skills/a/SKILL.md`)?.level).toBe("trusted");
    expect(new FileTrustRules({ "**/skills/**": "untrusted" }, { installations: [root] }).levelFor(null, `${root}/skills/weather/SKILL.md`)?.level).toBe("untrusted");
  });

  it("the owner's globs come first, in order; the first match decides", () => {
    const rules = new FileTrustRules({ "Downloads/mine/**": "trusted", "vendor/**": "external" });
    expect(rules.levelFor("Downloads/mine/a", "/ws/Downloads/mine/a")?.level).toBe("trusted");
    expect(rules.levelFor("Downloads/other/a", "/ws/Downloads/other/a")?.level).toBe("untrusted");
    expect(rules.levelFor("vendor/x", "/ws/vendor/x")).toEqual({ level: "external", reason: 'fileTrust "vendor/**" matches vendor/x' });
    expect(new FileTrustRules({ "**": "trusted" }).levelFor(null, "/home/u/Downloads/x")?.level).toBe("trusted");
  });

  it("bad globs are named", () => {
    expect(validateFileTrustGlob("!inbox/**")).toMatch(/negation/);
    expect(validateFileTrustGlob(" ")).toMatch(/empty/);
    expect(validateFileTrustGlob("inbox/**")).toBeNull();
  });
});

describe("file labels", () => {
  const label = { level: "untrusted" as const, sessionId: "s", tool: "write", at: "2026-01-01T00:00:00.000Z" };

  it("only get less trusted; a clear removes them; the format round-trips", () => {
    const labels = new FileLabels();
    expect(labels.mark("/ws/a", { ...label, level: "external" })).toBe(true);
    expect(labels.mark("/ws/a", { ...label, level: "shared" })).toBe(false);
    expect(labels.mark("/ws/a", label)).toBe(true);
    expect(FileLabels.parse(labels.serialize()).get("/ws/a")).toEqual(label);
    expect(labels.clear("/ws/a")).toBe(true);
    expect(labels.size).toBe(0);
  });

  it("windows and vouched change times round-trip; a version 1 file (labels alone) is read", () => {
    const labels = new FileLabels();
    labels.mark("/ws/a", label);
    labels.windows.add({ ...label, since: 1_700_000_000_000, until: 1_700_000_001_000 });
    expect(labels.vouch("2049:17", 1_700_000_000_500)).toBe(true);
    expect(labels.vouch("2049:17", 1_700_000_000_500)).toBe(false);
    const back = FileLabels.parse(labels.serialize());
    expect(back.windows.entries()).toEqual(labels.windows.entries());
    expect(back.vouchedAt("2049:17")).toBe(1_700_000_000_500);
    expect(back.vouchedAt("2049:18")).toBeUndefined();
    const v1 = FileLabels.parse(JSON.stringify({ version: 1, files: { "/ws/a": label } }));
    expect(v1.get("/ws/a")).toEqual(label);
    expect(v1.windows.size).toBe(0);
  });

  it("a file is in the window it was made or changed in until vouched for at its change time; changed again, it is back", () => {
    const labels = new FileLabels();
    labels.windows.add({ ...label, since: 100, until: 200 });
    const file = { dev: 7, ino: 9, ctimeMs: 150, birthtimeMs: 0 };
    expect(labels.windowFor(file)?.since).toBe(100);
    labels.vouch("7:9", 150);
    expect(labels.windowFor(file)).toBeUndefined();
    expect(labels.windowFor({ ...file, ino: 10 })?.since).toBe(100);
    expect(labels.windowFor({ ...file, ctimeMs: 151 })?.since).toBe(100);
    expect(labels.windowFor({ ...file, ctimeMs: 300 })).toBeUndefined();
  });

  it(`past ${MAX_VOUCHED_CHANGES} vouched files the oldest is forgotten (its file is read at its window's level again)`, () => {
    const labels = new FileLabels();
    for (let i = 0; i <= MAX_VOUCHED_CHANGES; i++) labels.vouch(`1:${i}`, i);
    expect(labels.vouchedAt("1:0")).toBeUndefined();
    expect(labels.vouchedAt("1:1")).toBe(1);
    expect(labels.vouchedAt(`1:${MAX_VOUCHED_CHANGES}`)).toBe(MAX_VOUCHED_CHANGES);
    // Vouching again for a file at a new change time makes it the newest.
    labels.vouch("1:1", 5);
    labels.vouch("2:0", 0);
    expect(labels.vouchedAt("1:1")).toBe(5);
    expect(labels.vouchedAt("1:2")).toBeUndefined();
  });

  it("anything but the format is refused whole, with the reason", () => {
    const window = { since: 1, until: 2, level: "untrusted", sessionId: "s", tool: "exec", at: "x" };
    const v2 = (extra: Record<string, unknown>) => JSON.stringify({ version: 2, files: {}, ...extra });
    expect(() => FileLabels.parse(v2({ windows: {} }))).toThrow(/windows is not a list/);
    expect(() => FileLabels.parse(v2({ windows: [null] }))).toThrow(/windows\[0\]: not an object/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, since: 3 }] }))).toThrow(/since not after until/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, until: 1e300 }] }))).toThrow(/must be times/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, since: "1" }] }))).toThrow(/must be times/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, level: "fine" }] }))).toThrow(/windows\[0\]: level "fine"/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, tool: 1 }] }))).toThrow(/must be strings/);
    expect(() => FileLabels.parse(v2({ windows: [5] }))).toThrow(/windows\[0\]: not an object/);
    for (const vouched of [[], null, 5]) expect(() => FileLabels.parse(v2({ vouched }))).toThrow(/vouched is not an object/);
    for (const key of ["/a", "x1:2", "1:2x"]) expect(() => FileLabels.parse(v2({ vouched: { [key]: 1 } }))).toThrow(/not device:inode/);
    expect(FileLabels.parse(v2({ windows: [{ ...window, since: 2, until: 2 }] })).windows.during(2)).toBeDefined();
    expect(() => FileLabels.parse(v2({ vouched: { "1:2": "1" } }))).toThrow(/the change time is not a number/);
    expect(() => FileLabels.parse(v2({ vouched: { "1:2": null } }))).toThrow(/the change time is not a number/);
    expect(FileLabels.parse(v2({ windows: [window], vouched: { "1:2": 1.5 } })).windows.during(2)?.tool).toBe("exec");
    expect(() => FileLabels.parse("[]")).toThrow(FileLabelFormatError);
    expect(() => FileLabels.parse('{"version":3,"files":{}}')).toThrow(/version/);
    expect(() => FileLabels.parse('{"version":1,"files":{"rel":{}}}')).toThrow(/absolute/);
    expect(() => FileLabels.parse('{"version":1,"files":{"/a":{"level":"ok","sessionId":"s","tool":"t","at":"x"}}}')).toThrow(/trust level/);
    expect(() => FileLabels.parse('{"version":1,"files":{"__proto__":{"level":"untrusted"}}}')).toThrow(/absolute/);
    // A window the processes a command left running keep open.
    const open = { ...window, until: OPEN };
    const sleeper = { pid: 42, identity: "boot/100", name: "sleep" };
    expect(FileLabels.parse(v2({ windows: [{ ...open, running: [sleeper] }] })).windows.open()).toEqual([{ ...open, running: [sleeper] }]);
    expect(FileLabels.parse(v2({ windows: [open] })).windows.during(1e15)).toBeDefined();
    expect(() => FileLabels.parse(v2({ windows: [{ ...window, running: [sleeper] }] }))).toThrow(/windows\[0\]: running processes in a window that is not open/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: {} }] }))).toThrow(/running must be a list of at most 64 processes/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: Array(65).fill(sleeper) }] }))).toThrow(/at most 64/);
    for (const pid of [0, -1, 1.5, "42", 2 ** 53]) expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: [{ ...sleeper, pid }] }] }))).toThrow(/windows\[0\]\.running\[0\]: pid must be a positive integer/);
    for (const identity of ["", 7, "x".repeat(257)]) expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: [{ ...sleeper, identity }] }] }))).toThrow(/identity must be a string of 1 to 256/);
    for (const name of [null, "x".repeat(257)]) expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: [{ ...sleeper, name }] }] }))).toThrow(/name must be a string of at most 256/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: [null] }] }))).toThrow(/running\[0\]: not an object/);
    expect(() => FileLabels.parse(v2({ windows: [{ ...open, running: [5] }] }))).toThrow(/running\[0\]: not an object/);
    // The bounds themselves are taken.
    const most = { ...sleeper, identity: "i".repeat(256), name: "n".repeat(256) };
    expect(FileLabels.parse(v2({ windows: [{ ...open, running: Array(64).fill(most) }] })).windows.open()[0]!.running).toHaveLength(64);
  });

  it("fuzz: parse either returns labels or throws FileLabelFormatError", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          FileLabels.parse(text);
        } catch (error) {
          expect(error).toBeInstanceOf(FileLabelFormatError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
