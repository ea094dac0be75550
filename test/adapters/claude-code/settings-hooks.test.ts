import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOOKED_EVENTS, SettingsError, withoutProvenantHooks, withProvenantHooks } from "../../../src/adapters/claude-code/settings-hooks.js";

const COMMAND = "'/usr/bin/node' '/opt/provenant/dist/cli/hook-main.js' claude-code";
const OTHER = { matcher: "Bash", hooks: [{ type: "command", command: "~/bin/audit-bash.sh" }] };

describe("provenant's hooks in settings.json", () => {
  it("are added for every event next to the user's hooks, once however often installed", () => {
    const settings = { model: "opus", hooks: { PreToolUse: [OTHER] } };
    const once = withProvenantHooks(settings, COMMAND);
    expect(withProvenantHooks(once, COMMAND)).toEqual(once);
    const hooks = once.hooks as Record<string, unknown[]>;
    expect(Object.keys(hooks).sort()).toEqual([...HOOKED_EVENTS].sort());
    expect(hooks.PreToolUse).toEqual([OTHER, { matcher: "*", hooks: [{ type: "command", command: `${COMMAND} --timeout 120`, timeout: 120 }] }]);
    expect(hooks.Stop).toEqual([{ hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }]);
    expect(once.model).toBe("opus");
  });

  it("are removed exactly, leaving the user's hooks (even in a group shared with ours)", () => {
    const shared = { matcher: "*", hooks: [{ type: "command", command: "echo mine" }, { type: "command", command: COMMAND }] };
    const settings = { hooks: { PreToolUse: [OTHER, shared], Stop: [{ hooks: [{ type: "command", command: COMMAND }] }] } };
    expect(withoutProvenantHooks(settings)).toEqual({ hooks: { PreToolUse: [OTHER, { matcher: "*", hooks: [{ type: "command", command: "echo mine" }] }] } });
  });

  it("install then uninstall gives back the user's settings (property)", () => {
    const command = fc.constantFrom("echo a", "~/bin/x.sh", "provenant-other claude-code-ish", "node hook.js");
    const group = fc.record({ matcher: fc.constantFrom("*", "Bash", "Edit|Write"), hooks: fc.array(fc.record({ type: fc.constant("command"), command }), { minLength: 1, maxLength: 2 }) });
    const settings = fc.record({ hooks: fc.dictionary(fc.constantFrom(...HOOKED_EVENTS, "Notification"), fc.array(group, { minLength: 1, maxLength: 2 }), { minKeys: 1 }) });
    fc.assert(
      fc.property(settings, (s) => {
        expect(withoutProvenantHooks(withProvenantHooks(s, COMMAND))).toEqual(s);
      }),
    );
  });

  it("refuses settings whose hooks are not the documented shape, changing nothing", () => {
    expect(() => withProvenantHooks({ hooks: [] }, COMMAND)).toThrow(SettingsError);
    expect(() => withProvenantHooks({ hooks: { PreToolUse: {} } }, COMMAND)).toThrow(/hooks.PreToolUse is not a list/);
    expect(() => withProvenantHooks({}, "echo not ours")).toThrow(SettingsError);
  });
});
