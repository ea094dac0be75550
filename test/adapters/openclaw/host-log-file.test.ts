import { describe, expect, it } from "vitest";
import { openclawLogFiles } from "../../../src/adapters/openclaw/host-log-file.js";

describe("OpenClaw's configured log file", () => {
  it("is where OpenClaw writes it: ~ is its home, a relative path is from where the gateway runs", () => {
    expect(openclawLogFiles({ logging: { file: "/srv/oc/gateway.log" } }, {}, "/home/u")).toEqual(["/srv/oc/gateway.log"]);
    expect(openclawLogFiles({ logging: { file: "~/logs/oc.log" } }, {}, "/home/u")).toEqual(["/home/u/logs/oc.log"]);
    expect(openclawLogFiles({ logging: { file: "~/logs/oc.log" } }, { OPENCLAW_HOME: "/srv/claw" }, "/home/u")).toEqual(["/srv/claw/logs/oc.log"]);
    expect(openclawLogFiles({ logging: { file: "~/oc.log" } }, { OPENCLAW_HOME: "~/claw" }, "/home/u")).toEqual(["/home/u/claw/oc.log"]);
    expect(openclawLogFiles({ logging: { file: "logs/oc.log" } }, {}, "/home/u")).toEqual([`${process.cwd()}/logs/oc.log`]);
    // `~` alone is the home; a `~` anywhere but first is a name, as OpenClaw reads it.
    expect(openclawLogFiles({ logging: { file: "~" } }, {}, "/home/u")).toEqual(["/home/u"]);
    expect(openclawLogFiles({ logging: { file: "/srv/a~/oc.log" } }, {}, "/home/u")).toEqual(["/srv/a~/oc.log"]);
    expect(openclawLogFiles({ logging: { file: "~/oc.log" } }, { OPENCLAW_HOME: "~" }, "/home/u")).toEqual(["/home/u/oc.log"]);
    expect(openclawLogFiles({ logging: { file: "~/oc.log" } }, { OPENCLAW_HOME: "/srv/a~" }, "/home/u")).toEqual(["/srv/a~/oc.log"]);
    // An empty or blank OPENCLAW_HOME is none.
    for (const blank of ["", "  "]) expect(openclawLogFiles({ logging: { file: "~/oc.log" } }, { OPENCLAW_HOME: blank }, "/home/u"), JSON.stringify(blank)).toEqual(["/home/u/oc.log"]);
    // `~user` is not OpenClaw's home.
    expect(openclawLogFiles({ logging: { file: "~bob/oc.log" } }, {}, "/home/u")).toEqual([`${process.cwd()}/~bob/oc.log`]);
  });

  it("is none when the configuration names none, or names it in a shape OpenClaw would not take", () => {
    for (const config of [undefined, null, {}, { logging: {} }, { logging: { file: "" } }, { logging: { file: "  " } }, { logging: { file: 7 } }, { logging: [] }, "logging"]) {
      expect(openclawLogFiles(config, {}, "/home/u"), JSON.stringify(config)).toEqual([]);
    }
  });
});
