import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTrace, TraceError } from "../../src/adapters/replay/trace-events.js";
import { verifyEnvelope } from "../../src/auth/envelope.js";
import { KeyRing } from "../../src/auth/key-ring.js";
import { ReplayCache } from "../../src/auth/replay-cache.js";
import { resolveRequesterKey } from "../../src/auth/requester.js";
import { a2aRequesterKey, deriveTurnSessionKey } from "../../src/auth/session-key.js";
import { ConfigError } from "../../src/core/config-error.js";
import { resolveGuardConfig } from "../../src/guard-config.js";
import { deepJsonText, fuzzParams, shallowValue, FUZZ_TIMEOUT_MS, hostileName, hostileText, hostileValue } from "./fuzz-settings.js";

const configKey = fc.constantFrom("taintPolicy", "toolOverrides", "toolOutputTaints", "toolActionClasses", "agents", "failMode", "ownerIds", "memoryFiles", "sig", "auth", "toolArgumentRoles");
/** Configurations shaped like real ones, with hostile keys and values where names go. */
const configLike = fc.dictionary(
  fc.oneof({ weight: 3, arbitrary: configKey }, { weight: 1, arbitrary: hostileName }),
  fc.oneof(
    hostileValue,
    fc.dictionary(hostileName, fc.oneof(fc.constantFrom("allow", "confirm", "restrict", "untrusted", "read"), fc.dictionary(fc.constantFrom("*", "trusted", "untrusted", "__proto__"), fc.constantFrom("allow", "x")))),
  ),
  { maxKeys: 5 },
);

const traceLine = fc.oneof(
  deepJsonText.map((deep) => `{"event":"tool_result","id":"c1","tool":"read","output":${deep}}`),
  deepJsonText.map((deep) => `{"event":"config","config":{"toolOverrides":${deep}}}`),
  fc.record({
    event: fc.constantFrom("config", "turn", "tool_call", "tool_result", "response", "other"),
    session: hostileName,
    id: hostileName,
    tool: hostileName,
    text: hostileText,
    params: shallowValue,
    output: shallowValue,
    config: fc.dictionary(fc.oneof(configKey, hostileName), shallowValue, { maxKeys: 3 }),
  }, { requiredKeys: ["event"] }).map((e) => JSON.stringify(e)),
  fc.string({ unit: "binary", maxLength: 120 }),
);

const ring = KeyRing.fromKeys([{ id: "k1", secret: new Uint8Array(32).fill(7), created: "2026-01-01T00:00:00.000Z" }], "k1");

describe("fuzzing the parsers", () => {
  it(
    "configuration: any value resolves or is refused with a ConfigError, never anything else",
    () => {
      fc.assert(
        fc.property(fc.oneof(configLike, hostileValue), (input) => {
          try {
            resolveGuardConfig(input);
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigError);
          }
        }),
        fuzzParams("configuration", 2),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "traces: any text parses or is refused with a TraceError naming the line",
    () => {
      fc.assert(
        fc.property(fc.array(traceLine, { maxLength: 5 }), (lines) => {
          try {
            parseTrace(lines.join("\n"));
          } catch (error) {
            expect(error).toBeInstanceOf(TraceError);
            expect((error as TraceError).line).toBeGreaterThan(0);
          }
        }),
        fuzzParams("traces", 1),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "envelopes and session keys: any text is verified or refused, never thrown on",
    () => {
      fc.assert(
        fc.property(hostileText, hostileText, hostileName, (prefix, body, sessionId) => {
          const input = `${prefix}[MSG_AUTH:${body}]${prefix}[/MSG_AUTH]`;
          for (const text of [input, body]) {
            const result = verifyEnvelope(ring, new ReplayCache(8), text, { sessionId, now: 1_800_000_000_000, freshnessSeconds: 300, futureSkewSeconds: 30, maxChars: 1 << 20 });
            expect(typeof result.ok).toBe("boolean");
            const prompt = `${prefix}\nAgent-to-agent message context:\nAgent 1 (requester) session: ${body}\nAgent 2 (target) session: agent:${sessionId}:x\n`;
            deriveTurnSessionKey({ agentId: sessionId, systemPrompt: prompt, messages: [{ role: "user", content: text }] });
            a2aRequesterKey(prompt);
            resolveRequesterKey({ systemPrompt: prompt, inputProvenance: { kind: body, sourceSessionKey: text } });
          }
        }),
        fuzzParams("envelopes and session keys", 3),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
