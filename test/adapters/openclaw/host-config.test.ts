import { describe, expect, it } from "vitest";
import { currentHostConfig, enablesPlugin, hostConfigValue } from "../../../src/adapters/openclaw/host-config.js";

/** As `openclaw plugins install` leaves it. */
const INSTALLED = { load: { paths: ["/opt/provenant"] }, entries: { provenant: { enabled: true } } };

describe("OpenClaw's configuration", () => {
  it("gives a value at a key path, only through own keys of objects", () => {
    expect(hostConfigValue({ a: { b: [1] } }, ["a", "b"])).toEqual([1]);
    expect(hostConfigValue({ a: [{ b: 1 }] }, ["a", "0", "b"])).toBeUndefined();
    expect(hostConfigValue(Object.create({ a: 1 }) as unknown, ["a"])).toBeUndefined();
    expect(hostConfigValue(null, [])).toBeNull();
  });

  it("is the configuration as the host last reloaded it, else as it was at registration; a host that fails to say throws", () => {
    const atStart = { logging: { file: "/a.log" } };
    const reloaded = { logging: { file: "/b.log" } };
    expect(currentHostConfig({ config: atStart, runtime: { config: { current: () => reloaded } } })).toBe(reloaded);
    expect(currentHostConfig({ config: atStart, runtime: { config: { current: () => undefined } } })).toBe(atStart);
    expect(currentHostConfig({ config: atStart, runtime: { config: {} } })).toBe(atStart);
    expect(currentHostConfig({ config: atStart })).toBe(atStart);
    expect(() =>
      currentHostConfig({
        config: atStart,
        runtime: {
          config: {
            current: () => {
              throw new Error("reloading");
            },
          },
        },
      }),
    ).toThrow("reloading");
  });

  it("enables the provenant plugin when it says so, and not when it leaves the plugin out in any way", () => {
    expect(enablesPlugin({ plugins: INSTALLED })).toBe(true);
    expect(enablesPlugin({ plugins: { ...INSTALLED, enabled: true, allow: ["telegram", "provenant"], deny: ["other"] } })).toBe(true);
    for (const plugins of [
      undefined,
      {},
      { entries: { other: { enabled: true } } },
      { ...INSTALLED, enabled: false },
      { entries: { provenant: { enabled: false } } },
      { entries: { provenant: { enabled: "true" } } },
      { entries: { provenant: true } },
      { entries: { provenant: { config: {} } } },
      { ...INSTALLED, allow: ["telegram"] },
      { ...INSTALLED, allow: [] },
      { ...INSTALLED, deny: ["provenant"] },
      { entries: Object.create({ provenant: { enabled: true } }) as unknown },
    ]) {
      expect(enablesPlugin({ plugins }), JSON.stringify(plugins)).toBe(false);
    }
    // A list that is not one keeps nothing out.
    expect(enablesPlugin({ plugins: { ...INSTALLED, allow: "provenant", deny: "provenant" } })).toBe(true);
    expect(enablesPlugin(null)).toBe(false);
  });
});
