import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { changeTimeSpan, ChangeWindows, MAX_CHANGE_WINDOWS, MAX_RUNNING_PROCESSES, OPEN, runningText, type ChangeWindow, type RunningProcess } from "../../src/core/change-windows.js";
import { lessTrusted, TRUST_LEVELS, type TrustLevel } from "../../src/core/trust-levels.js";

const window = (since: number, until: number, level: TrustLevel = "untrusted", tool = "exec"): ChangeWindow => ({ since, until, level, sessionId: "s", tool, at: "2026-11-26T10:00:00.000Z" });

describe("change windows", () => {
  it("a change time inside a window finds it; before, between and after find none", () => {
    const windows = new ChangeWindows();
    expect(windows.during(5)).toBeUndefined();
    windows.add(window(10, 20));
    windows.add(window(40, 50, "external"));
    expect(windows.during(9)).toBeUndefined();
    expect(windows.during(10)?.level).toBe("untrusted");
    expect(windows.during(20)?.level).toBe("untrusted");
    expect(windows.during(21)).toBeUndefined();
    expect(windows.during(45)?.level).toBe("external");
    expect(windows.during(51)).toBeUndefined();
    // A span (a whole-second change time) finds a window it overlaps.
    expect(windows.during(21, 39)).toBeUndefined();
    expect(windows.during(21, 40)?.level).toBe("external");
    expect(windows.during(0, 10)?.level).toBe("untrusted");
  });

  it("overlapping windows are joined at the worse level; one a window as bad already covers changes nothing", () => {
    const windows = new ChangeWindows();
    expect(windows.add(window(10, 20, "external", "first"))).toBe(true);
    expect(windows.add(window(12, 18, "external"))).toBe(false);
    expect(windows.add(window(12, 18, "shared"))).toBe(false);
    expect(windows.add(window(15, 30, "untrusted", "second"))).toBe(true);
    expect(windows.entries()).toEqual([window(10, 30, "untrusted", "second")]);
    expect(windows.add(window(5, 10, "external"))).toBe(true);
    expect(windows.entries()).toEqual([window(5, 30, "untrusted", "second")]);
    // Inside, but worse than the window covering it: the window takes the worse level.
    const two = new ChangeWindows();
    two.add(window(0, 100, "external"));
    expect(two.add(window(40, 60, "untrusted"))).toBe(true);
    expect(two.entries()).toEqual([window(0, 100, "untrusted")]);
  });

  it("a window as bad that starts where the new one starts and ends after it covers it; equal gaps past the bound join the first pair", () => {
    const windows = new ChangeWindows();
    windows.add(window(10, 20));
    expect(windows.add(window(10, 15))).toBe(false);
    expect(windows.add(window(15, 20))).toBe(false);
    const even = new ChangeWindows();
    for (let i = 0; i <= MAX_CHANGE_WINDOWS; i++) even.add(window(i * 100, i * 100 + 10));
    expect(even.entries()[0]).toMatchObject({ since: 0, until: 110 });
    expect(even.entries().at(-1)).toMatchObject({ since: MAX_CHANGE_WINDOWS * 100, until: MAX_CHANGE_WINDOWS * 100 + 10 });
  });

  it("a window that ends before it starts is refused", () => {
    expect(() => new ChangeWindows().add(window(20, 10))).toThrow(/must not end before it starts/);
  });

  it(`past ${MAX_CHANGE_WINDOWS} windows the two closest are joined: the record stays bounded and covers all it covered`, () => {
    const windows = new ChangeWindows();
    for (let i = 0; i < MAX_CHANGE_WINDOWS; i++) windows.add(window(i * 100, i * 100 + 10));
    // The gap after window 7 is the smallest once this one is added beside it.
    windows.add(window(715, 716, "external"));
    expect(windows.size).toBe(MAX_CHANGE_WINDOWS);
    expect(windows.during(711)?.level).toBe("untrusted");
    expect(windows.during(716)?.level).toBe("untrusted");
    expect(windows.during(750)).toBeUndefined();
    // The last pair is joined when it is the closest.
    windows.add(window(MAX_CHANGE_WINDOWS * 100 + 11, MAX_CHANGE_WINDOWS * 100 + 12));
    expect(windows.size).toBe(MAX_CHANGE_WINDOWS);
    expect(windows.during(MAX_CHANGE_WINDOWS * 100 + 10 - 100)).toBeDefined();
    expect(windows.entries().at(-1)?.until).toBe(MAX_CHANGE_WINDOWS * 100 + 12);
  });

  it("property: whatever is added, the windows stay in order and disjoint, every time added is found at its level or worse, and no other", () => {
    const arbitraryWindow = fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 50 }), fc.constantFrom(...TRUST_LEVELS)).map(([since, length, level]) => window(since, since + length, level));
    fc.assert(
      fc.property(fc.array(arbitraryWindow, { maxLength: 40 }), fc.integer({ min: 0, max: 1100 }), (added, probe) => {
        const windows = new ChangeWindows();
        for (const w of added) windows.add(w);
        const list = windows.entries();
        for (let i = 1; i < list.length; i++) expect(list[i - 1]!.until).toBeLessThan(list[i]!.since);
        for (const w of added) {
          for (const time of [w.since, w.until]) {
            const found = windows.during(time);
            expect(found).toBeDefined();
            expect(lessTrusted(w.level, found!.level)).toBe(false);
          }
        }
        // Below the bound nothing is widened: a time is found exactly when a window added covers it.
        expect(windows.during(probe) !== undefined).toBe(added.some((w) => w.since <= probe && probe <= w.until));
      }),
      { numRuns: 300 },
    );
  });

  it("a file is covered by the window it was made in or last changed in, the worse if both; a birth time of 0 is none", () => {
    const windows = new ChangeWindows();
    windows.add(window(10, 20, "external"));
    windows.add(window(40, 50, "untrusted"));
    expect(windows.covering({ birthtimeMs: 15, ctimeMs: 100 })?.level).toBe("external");
    expect(windows.covering({ birthtimeMs: 5, ctimeMs: 45 })?.level).toBe("untrusted");
    expect(windows.covering({ birthtimeMs: 15, ctimeMs: 45 })?.level).toBe("untrusted");
    expect(windows.covering({ birthtimeMs: 45, ctimeMs: 15 })?.level).toBe("untrusted");
    expect(windows.covering({ birthtimeMs: 12, ctimeMs: 15 })?.level).toBe("external");
    expect(windows.covering({ birthtimeMs: 5, ctimeMs: 30 })).toBeUndefined();
    expect(windows.covering({ birthtimeMs: 0, ctimeMs: 30 })).toBeUndefined();
    const fromZero = new ChangeWindows();
    fromZero.add(window(0, 20));
    expect(fromZero.covering({ birthtimeMs: 0, ctimeMs: 30 })).toBeUndefined();
  });

  it("a change time a file system keeps in whole seconds stands for its second", () => {
    expect(changeTimeSpan(1_700_000_000_000)).toEqual([1_700_000_000_000, 1_700_000_000_999]);
    expect(changeTimeSpan(1_700_000_000_001)).toEqual([1_700_000_000_001, 1_700_000_000_001]);
  });

  it("a change time in the millisecond a window ended at is in the window, though it carries a fraction past it", () => {
    // Windows end at Date.now(), in whole milliseconds; the file system keeps nanoseconds.
    expect(changeTimeSpan(1_700_000_000_001.75)).toEqual([1_700_000_000_001, 1_700_000_000_001]);
    const windows = new ChangeWindows();
    windows.add(window(10, 20));
    expect(windows.covering({ birthtimeMs: 0, ctimeMs: 20.999 })?.level).toBe("untrusted");
    expect(windows.covering({ birthtimeMs: 20.5, ctimeMs: 30 })?.level).toBe("untrusted");
    expect(windows.covering({ birthtimeMs: 0, ctimeMs: 21 })).toBeUndefined();
    expect(windows.covering({ birthtimeMs: 0, ctimeMs: 9.999 })).toBeUndefined();
  });
});

describe("change windows a command's processes keep open", () => {
  const proc = (pid: number): RunningProcess => ({ pid, identity: `boot/${pid}00`, name: "sleep" });
  const open = (since: number, running: readonly RunningProcess[], level: TrustLevel = "untrusted"): ChangeWindow => ({ ...window(since, OPEN, level), running });
  it("an open window covers every change after it began until it closes, at the time read after its last process was seen gone", () => {
    const windows = new ChangeWindows();
    windows.add(open(10, [proc(7), proc(8)]));
    expect(windows.open()).toHaveLength(1);
    expect(windows.during(1e13)?.level).toBe("untrusted");
    // One process still runs: nothing closes, and the clock is not read.
    const clock = (): number => {
      throw new Error("read while a process still runs");
    };
    expect(windows.closeEnded((p) => p.pid === 8, clock)).toBe(false);
    expect(windows.during(1e13)).toBeDefined();
    let looked = false;
    expect(
      windows.closeEnded(
        () => {
          looked = true;
          return false;
        },
        () => (looked ? 500 : 0),
      ),
    ).toBe(true);
    expect(windows.entries()).toEqual([window(10, 500)]);
    expect(windows.open()).toEqual([]);
    expect(windows.during(501)).toBeUndefined();
    expect(windows.during(500)).toBeDefined();
  });

  it("a window closed before it began is closed where it began", () => {
    const windows = new ChangeWindows();
    windows.add(open(100, [proc(7)]));
    windows.closeEnded(() => false, () => 50);
    expect(windows.entries()).toEqual([window(100, 100)]);
  });

  it("a later window joins an open one, at the worse level, and keeps it open while any process of either runs", () => {
    const windows = new ChangeWindows();
    windows.add(open(10, [proc(7)], "external"));
    expect(windows.add(window(40, 50, "external"))).toBe(false);
    expect(windows.add(open(40, [proc(7)], "external"))).toBe(false);
    // A process the open window does not follow is taken on, though the window covers the span.
    expect(windows.add(open(60, [proc(9)], "external"))).toBe(true);
    expect(windows.add(window(70, 80, "untrusted", "later"))).toBe(true);
    expect(windows.entries()).toEqual([{ ...window(10, OPEN, "untrusted", "later"), running: [proc(9), proc(7)] }]);
    expect(windows.closeEnded((p) => p.pid === 9, () => 1000)).toBe(false);
    expect(windows.closeEnded(() => false, () => 1000)).toBe(true);
    expect(windows.entries()).toEqual([window(10, 1000, "untrusted", "later")]);
  });

  it(`a window held open for good (more than ${MAX_RUNNING_PROCESSES} processes left) never closes by itself, and holds every window joined with it`, () => {
    const windows = new ChangeWindows();
    windows.add(open(10, []));
    expect(windows.add(open(20, [proc(7)]))).toBe(false);
    expect(windows.closeEnded(() => false, () => 1000)).toBe(false);
    expect(windows.entries()).toEqual([open(10, [])]);
    const many = new ChangeWindows();
    many.add(open(10, Array.from({ length: MAX_RUNNING_PROCESSES }, (_, i) => proc(i + 2))));
    many.add(open(20, [proc(1000)]));
    expect(many.entries()).toEqual([open(10, [])]);
  });

  it("joined windows follow each process once; a window held open for good stays so when a worse one joins it; 64 processes are followed, 65 are not", () => {
    const windows = new ChangeWindows();
    windows.add(open(10, [proc(7), proc(9)], "external"));
    // A window that follows some of the processes already followed is covered.
    expect(windows.add(open(20, [proc(7)], "external"))).toBe(false);
    expect(windows.add(open(30, [proc(7), proc(11)], "untrusted"))).toBe(true);
    expect(windows.entries()).toEqual([open(10, [proc(7), proc(11), proc(9)])]);
    // Two processes started in one clock tick share their start, not their pid.
    const twins = new ChangeWindows();
    twins.add(open(10, [{ pid: 7, identity: "boot/1", name: "sh" }]));
    expect(twins.add(open(10, [{ pid: 8, identity: "boot/1", name: "sleep" }]))).toBe(true);
    expect(twins.entries()[0]!.running).toHaveLength(2);
    // A pid given again to a later process is another process.
    expect(twins.add(open(10, [{ pid: 7, identity: "boot/2", name: "sh" }]))).toBe(true);
    expect(twins.entries()[0]!.running).toHaveLength(3);
    const held = new ChangeWindows();
    held.add(open(10, [], "external"));
    expect(held.add(open(20, [proc(7)], "untrusted"))).toBe(true);
    expect(held.entries()).toEqual([open(10, [], "untrusted")]);
    const edge = new ChangeWindows();
    edge.add(open(10, Array.from({ length: MAX_RUNNING_PROCESSES - 1 }, (_, i) => proc(i + 2))));
    edge.add(open(20, [proc(1000)], "untrusted"));
    expect(edge.entries()[0]!.running).toHaveLength(MAX_RUNNING_PROCESSES);
  });

  it("the owner's close closes the open window at the time given and leaves a closed one as it was; with none open it changes nothing", () => {
    const windows = new ChangeWindows();
    windows.add(window(0, 5));
    expect(windows.closeAll(100)).toBe(false);
    windows.add(open(10, [proc(7)]));
    expect(windows.closeAll(100)).toBe(true);
    expect(windows.entries()).toEqual([window(0, 5), window(10, 100)]);
  });

  it("a closed window before an open one stays apart, and closing leaves the windows in order", () => {
    const windows = new ChangeWindows();
    windows.add(window(0, 5));
    windows.add(open(10, [proc(7)]));
    windows.closeEnded(() => false, () => 20);
    expect(windows.entries()).toEqual([window(0, 5), window(10, 20)]);
  });

  it("processes are named as the owner can find them, a name a process gave itself escaped; past the number shown, how many more", () => {
    const four = [proc(7), { ...proc(8), name: "x\u001b[2J" }, proc(9), proc(10)];
    expect(runningText(four)).toBe("sleep (pid 7), x\\x1b[2J (pid 8), sleep (pid 9), sleep (pid 10)");
    expect(runningText(four, 3)).toBe("sleep (pid 7), x\\x1b[2J (pid 8), sleep (pid 9) and 1 more");
    expect(runningText(four.slice(0, 3), 3)).toBe("sleep (pid 7), x\\x1b[2J (pid 8), sleep (pid 9)");
  });
});

