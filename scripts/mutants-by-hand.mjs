#!/usr/bin/env node
// Shows that each rule test and each repaired test fails on the wrong change it was written for.
// For every entry: apply the change to the source file, run the named test, expect it to FAIL,
// put the file back (also on Ctrl-C). Exit status 1 if any test passed on its mutant.
//
//   npm run mutation:by-hand              every entry
//   npm run mutation:by-hand -- lexical   entries whose name contains "lexical"
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const MUTANTS = [
  {
    name: "resolve-path: lexical reading dropped",
    file: "src/state/resolve-path.ts",
    from: "candidates: kernel === lexical ? [kernel] : [kernel, lexical]",
    to: "candidates: [kernel]",
    test: ["test/state/resolve-path.test.ts", "-t", "rule: the lexical reading"],
  },
  {
    name: "resolve-path: lexical reading dropped, seen by the kernel-faithful fuzz reference",
    file: "src/state/resolve-path.ts",
    from: "candidates: kernel === lexical ? [kernel] : [kernel, lexical]",
    to: "candidates: [kernel]",
    test: ["test/state/resolve-path.test.ts", "-t", "survives fuzzed path tricks"],
  },
  {
    name: "resolve-path: named check dropped",
    file: "src/state/resolve-path.ts",
    from: "    if (matcher.matches(name)) return { resolvedPath: landing",
    to: "    if (false) return { resolvedPath: landing",
    test: ["test/state/resolve-path.test.ts", "-t", "rule: the named check"],
  },
  {
    name: "tool-policy: toolActionClasses makes a tool known",
    file: "src/core/tool-policy.ts",
    from: "      ...Object.keys(config.toolOutputTaints),\n",
    to: "      ...Object.keys(config.toolOutputTaints),\n      ...Object.keys(config.toolActionClasses),\n",
    test: ["test/core/action-class-not-known.test.ts"],
  },
  {
    name: "config: monotonicity skipped for agents.*",
    file: "src/core/config.ts",
    from: "  enforceMonotonicity(taintPolicy, `${prefix}taintPolicy`, warnings);",
    to: '  if (prefix === "") enforceMonotonicity(taintPolicy, `${prefix}taintPolicy`, warnings);',
    test: ["test/core/agent-policy-monotonicity.test.ts"],
  },
  {
    name: "guard: owner-DM with no target ignores the group",
    file: "src/core/message-recipients.ts",
    from: 'if (named.length === 0) return inOwnerDm && action !== "broadcast";',
    to: 'if (named.length === 0) return context.senderIsOwner === true && action !== "broadcast";',
    test: ["test/guard/owner-dm-group.test.ts", "-t", "rule: with no target"],
  },
  {
    name: "guard: owner-DM target === senderId ignores the group",
    file: "src/core/message-recipients.ts",
    from: "(inOwnerDm && context.senderId !== null && name === context.senderId)",
    to: "(context.senderIsOwner === true && context.senderId !== null && name === context.senderId)",
    test: ["test/guard/owner-dm-group.test.ts", "-t", "rule: the owner's own sender id"],
  },
  {
    name: "file-ledger: the group-commit timer does not sync",
    file: "src/ledger/file-ledger.ts",
    from: "        this.timer = undefined;\n        try {\n          this.sync();",
    to: "        this.timer = undefined;\n        try {\n          void this.pending;",
    test: ["test/ledger/group-commit-timer.test.ts", "-t", "rule: the timer syncs"],
  },
  {
    name: "guard config property: a crash only a non-default config reaches (developerMode header)",
    file: "src/core/developer-header.ts",
    from: "  return `${TRUST_EMOJI[taint]}",
    to: '  throw new TypeError(`reached only with developerMode on (${lastImpacted})`);\n  return `${TRUST_EMOJI[taint]}',
    test: ["test/guard/guard.test.ts", "-t", "any config that validates"],
  },
  {
    name: "sig runtime: the verification gate answers allow instead of block",
    file: "src/sig/verification-gate.ts",
    from: 'verdict: "block",\n        rule: "sig.verification_required",',
    to: 'verdict: "allow",\n        rule: "sig.verification_required",',
    test: ["test/sig/runtime.test.ts", "-t", "blocks every default gated tool"],
  },
  {
    name: "watermark store: the debounce timer never writes",
    file: "src/state/watermark-store.ts",
    from: "        this.timer = undefined;\n        try {\n          this.flush();",
    to: "        this.timer = undefined;\n        try {\n          void this.pendingImpacts;",
    test: ["test/state/watermark-store.test.ts", "-t", "debounces and coalesces"],
  },
  {
    name: "broker: max_connections off by one",
    file: "src/broker/broker-daemon.ts",
    from: "if (active >= proxy.maxConnections) {",
    to: "if (active > proxy.maxConnections) {",
    test: ["test/broker/daemon-checks.test.ts", "-t", "over max_connections"],
  },
  // Module-level patterns: Stryker's vitest runner reports its mutants of them as uncovered (they
  // run when the module loads, before any test), so these are checked here.
  {
    name: "broker request MAC: canonical spelling not anchored at the start",
    file: "src/broker/request-mac.ts",
    from: "const CANONICAL_MAC = /^[A-Za-z0-9+/]{42}",
    to: "const CANONICAL_MAC = /[A-Za-z0-9+/]{42}",
    test: ["test/broker/request-mac.test.ts", "-t", "refuses every other spelling"],
  },
  {
    name: "broker request MAC: canonical spelling not anchored at the end",
    file: "src/broker/request-mac.ts",
    from: "[AEIMQUYcgkosw048]=$/;",
    to: "[AEIMQUYcgkosw048]=/;",
    test: ["test/broker/request-mac.test.ts", "-t", "refuses every other spelling"],
  },
  {
    name: "broker request MAC: trailing bits of the last symbol accepted",
    file: "src/broker/request-mac.ts",
    from: "{42}[AEIMQUYcgkosw048]=$/;",
    to: "{42}[A-Za-z0-9+/]=$/;",
    test: ["test/broker/request-mac.test.ts", "-t", "refuses every other spelling"],
  },
  {
    name: "broker request MAC: the 42-symbol run shortened to one",
    file: "src/broker/request-mac.ts",
    from: "/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/",
    to: "/^[A-Za-z0-9+/][AEIMQUYcgkosw048]=$/",
    test: ["test/broker/request-mac.test.ts", "-t", "decodes the canonical spelling"],
  },
  {
    name: "broker request MAC: the alphabet negated",
    file: "src/broker/request-mac.ts",
    from: "/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/",
    to: "/^[^A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/",
    test: ["test/broker/request-mac.test.ts", "-t", "decodes the canonical spelling"],
  },
  {
    name: "broker request MAC: the last symbol's class negated",
    file: "src/broker/request-mac.ts",
    from: "/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/",
    to: "/^[A-Za-z0-9+/]{42}[^AEIMQUYcgkosw048]=$/",
    test: ["test/broker/request-mac.test.ts", "-t", "decodes the canonical spelling"],
  },
  {
    name: "broker caller check: hijack variable names not anchored",
    file: "src/broker/caller-verification.ts",
    from: "const HIJACK = /^(LD_PRELOAD",
    to: "const HIJACK = /(LD_PRELOAD",
    test: ["test/broker/caller-verification.test.ts", "-t", "only contains a hijack name"],
  },
  {
    name: "watermark file: ISO time pattern fraction required",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})(Z|[+-]\d{2}:\d{2})$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  {
    name: "watermark file: ISO time pattern offset sign negated",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[^+-]\d{2}:\d{2})$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  {
    name: "watermark file: ISO time pattern offset hours one digit",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d:\d{2})$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  {
    name: "watermark file: ISO time pattern offset hours not digits",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\D{2}:\d{2})$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  {
    name: "watermark file: ISO time pattern offset minutes one digit",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d)$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  {
    name: "watermark file: ISO time pattern offset minutes not digits",
    file: "src/state/watermark-file.ts",
    from: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`,
    to: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\D{2})$/`,
    test: ["test/state/watermark-file.test.ts", "-t", "ISO 8601 times accepts"],
  },
  // Envelope markers and session keys: the look-alike table, the pattern of what may fold and the
  // session-key patterns are built when the module loads, so Stryker cannot run their mutants.
  {
    name: "envelope markers: the look-alikes of G dropped",
    file: "src/auth/envelope-markers.ts",
    from: "  G: \"\\u050C\\u050D\\u0262\\u0261\\u13C0\\u13F3\",",
    to: "  G: \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "G"'],
  },
  {
    name: "envelope markers: the look-alikes of U dropped",
    file: "src/auth/envelope-markers.ts",
    from: "  U: \"\\u054D\\u057D\\u03C5\\u1D1C\\u222A\\u028B\",",
    to: "  U: \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "U"'],
  },
  {
    name: "envelope markers: the look-alike opening brackets dropped",
    file: "src/auth/envelope-markers.ts",
    from: "  \"[\": \"\\u27E6\\u3010\\u3014\\u301A\\u2045\\u2772\\u3018\\uFE5D\\uFE47\\u298B\\u298D\\u298F\\u207D\\u208D\\u2329\\u27E8\\u3008\",",
    to: "  \"[\": \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "\\["'],
  },
  {
    name: "envelope markers: the look-alike closing brackets dropped",
    file: "src/auth/envelope-markers.ts",
    from: "  \"]\": \"\\u27E7\\u3011\\u3015\\u301B\\u2046\\u2773\\u3019\\uFE5E\\uFE48\\u298C\\u298E\\u2990\\u207E\\u208E\\u232A\\u27E9\\u3009\",",
    to: "  \"]\": \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "\\]"'],
  },
  {
    name: "envelope markers: the look-alike slashes dropped",
    file: "src/auth/envelope-markers.ts",
    from: "  \"/\": \"\\u2044\\u2215\\u2571\\u29F8\",",
    to: "  \"/\": \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "/"'],
  },
  {
    name: "envelope markers: the foldable pattern loses its opening bracket",
    file: "src/auth/envelope-markers.ts",
    from: "  \"[\" +\n    Object.values(LOOKALIKES)",
    to: "  \"\" +\n    Object.values(LOOKALIKES)",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "M"'],
  },
  {
    name: "envelope markers: the look-alikes left out of the foldable pattern",
    file: "src/auth/envelope-markers.ts",
    from: "Object.values(LOOKALIKES).join(\"\") +",
    to: "\"Stryker was here!\" +",
    test: ["test/auth/envelope-markers.test.ts", "-t", 'every look-alike of "M"'],
  },
  {
    name: "envelope markers: the astral invisibles left out of the foldable pattern",
    file: "src/auth/envelope-markers.ts",
    from: "\"\\\\u{1BCA0}-\\\\u{1BCA3}\\\\u{1D173}-\\\\u{1D17A}\\\\u{E0000}-\\\\u{E0FFF}\" +",
    to: "\"\" +",
    test: ["test/auth/envelope-markers.test.ts", "-t", "every default-ignorable code point"],
  },
  {
    name: "envelope markers: the foldable pattern not closed",
    file: "src/auth/envelope-markers.ts",
    from: "    \"]\",\n  \"gu\",",
    to: "    \"\",\n  \"gu\",",
    test: ["test/auth/envelope-markers.test.ts"],
  },
  {
    name: "envelope markers: the foldable pattern neither global nor Unicode",
    file: "src/auth/envelope-markers.ts",
    from: "    \"]\",\n  \"gu\",",
    to: "    \"]\",\n  \"\",",
    test: ["test/auth/envelope-markers.test.ts", "-t", "every default-ignorable code point"],
  },
  {
    name: "session key: the target line not anchored at its start",
    file: "src/auth/session-key.ts",
    from: "/^Agent 2 \\(target\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/Agent 2 \\(target\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "a target line outside the block"],
  },
  {
    name: "session key: exactly one blank before the target key",
    file: "src/auth/session-key.ts",
    from: "/^Agent 2 \\(target\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/^Agent 2 \\(target\\) session:[ \\t](\\S+?)\\.?[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "reads the target line"],
  },
  {
    name: "session key: the target line's closing dot required",
    file: "src/auth/session-key.ts",
    from: "/^Agent 2 \\(target\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/^Agent 2 \\(target\\) session:[ \\t]*(\\S+?)\\.[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "reads the target line"],
  },
  {
    name: "session key: the requester line not anchored at its start",
    file: "src/auth/session-key.ts",
    from: "/^Agent 1 \\(requester\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/Agent 1 \\(requester\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "the requester line is read the same way"],
  },
  {
    name: "session key: exactly one blank before the requester key",
    file: "src/auth/session-key.ts",
    from: "/^Agent 1 \\(requester\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/^Agent 1 \\(requester\\) session:[ \\t](\\S+?)\\.?[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "the requester line is read the same way"],
  },
  {
    name: "session key: the requester line's closing dot required",
    file: "src/auth/session-key.ts",
    from: "/^Agent 1 \\(requester\\) session:[ \\t]*(\\S+?)\\.?[ \\t]*$/",
    to: "/^Agent 1 \\(requester\\) session:[ \\t]*(\\S+?)\\.[ \\t]*$/",
    test: ["test/auth/session-key.test.ts", "-t", "the requester line is read the same way"],
  },
  {
    name: "session key: the key form not anchored at its start",
    file: "src/auth/session-key.ts",
    from: "/^agent:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)+$/",
    to: "/agent:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)+$/",
    test: ["test/auth/session-key.test.ts", "-t", "only whole keys are requesters"],
  },
  {
    name: "session key: the key form not anchored at its end",
    file: "src/auth/session-key.ts",
    from: "/^agent:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)+$/",
    to: "/^agent:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)+/",
    test: ["test/auth/session-key.test.ts", "-t", "does not match the session-key form whole"],
  },
];

const filter = process.argv[2];
const selected = MUTANTS.filter((m) => filter === undefined || m.name.includes(filter));
let restore = null;
const putBack = () => {
  if (restore !== null) restore();
  restore = null;
};
process.on("SIGINT", () => {
  putBack();
  process.exit(130);
});

const survivors = [];
for (const m of selected) {
  const original = readFileSync(m.file, "utf8");
  const at = original.indexOf(m.from);
  if (at === -1 || original.indexOf(m.from, at + 1) !== -1) {
    console.log(`STALE   ${m.name}: the text to change is not in ${m.file} exactly once; update this entry`);
    survivors.push(m.name);
    continue;
  }
  restore = () => writeFileSync(m.file, original);
  try {
    writeFileSync(m.file, original.slice(0, at) + m.to + original.slice(at + m.from.length));
    const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...m.test], { encoding: "utf8" });
    const killed = run.status !== 0 && /\d+ failed/.test(run.stdout);
    console.log(`${killed ? "KILLED " : "SURVIVED"} ${m.name}  (${m.test.join(" ")})`);
    if (!killed) survivors.push(m.name);
  } finally {
    putBack();
  }
}
console.log(`\n${selected.length - survivors.length} of ${selected.length} wrong changes caught`);
process.exit(survivors.length === 0 ? 0 : 1);
