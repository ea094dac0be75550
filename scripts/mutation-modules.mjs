// The security core under mutation testing: per module, the files mutated and the tests that must
// kill the mutants (the unit tests of those files; slow end-to-end tiers that add no kill are left
// out). docs/testing.md records each module's score.
export const MUTATION_MODULES = {
  // The policy engine: trust levels, the tool policy, configuration and its monotonicity, approval
  // codes, owner commands, initial trust, the provenance graph, protected-file patterns, the
  // owner-DM recipient rule.
  core: {
    gate: 90,
    mutate: [
      "src/core/trust-levels.ts",
      "src/core/policy-modes.ts",
      "src/core/tool-policy.ts",
      "src/core/config.ts",
      "src/core/approval-codes.ts",
      "src/core/call-text.ts",
      "src/core/owner-commands.ts",
      "src/core/initial-trust.ts",
      "src/core/provenance-graph.ts",
      "src/core/memory-files.ts",
      "src/core/message-recipients.ts",
      "src/core/tool-search.ts",
    ],
    tests: ["test/core/**/*.test.ts"],
  },
  // Approval codes and the call text they are bound to and show (a part of core a loaded machine
  // can re-measure in minutes).
  "approval-codes": {
    gate: 90,
    mutate: ["src/core/approval-codes.ts", "src/core/call-text.ts"],
    tests: ["test/core/approval-codes.test.ts"],
  },
  // Argument provenance: which call arguments came from which context, the operation a call performs
  // and the words that ask for it, egress reads, and records the owner designates.
  "core-arguments": {
    gate: 90,
    mutate: [
      "src/core/value-provenance.ts",
      "src/core/argument-matching.ts",
      "src/core/argument-gate.ts",
      "src/core/argument-decision.ts",
      "src/core/argument-roles.ts",
      "src/core/token-run-index.ts",
      "src/core/argument-egress.ts",
      "src/core/argument-operations.ts",
      "src/core/designated-records.ts",
    ],
    tests: ["test/core/**/*.test.ts"],
  },
  "resolve-path": {
    gate: 90,
    mutate: ["src/state/resolve-path.ts"],
    tests: ["test/state/resolve-path.test.ts"],
  },
  "state-files": {
    gate: 90,
    mutate: ["src/state/watermark-file.ts", "src/state/workspace-memory-files.ts", "src/state/file-label-store.ts", "src/core/file-labels.ts", "src/core/change-windows.ts", "src/state/file-lock.ts", "src/state/process-identity.ts", "src/state/processes-left-running.ts"],
    tests: [
      "test/state/file-labels.test.ts",
      "test/state/processes-left-running.test.ts",
      "test/state/file-lock.test.ts",
      "test/core/file-trust.test.ts",
      "test/core/change-windows.test.ts",
      "test/state/parsers.test.ts",
      "test/state/watermark-file.test.ts",
      "test/state/workspace-memory-files.test.ts",
      "test/state/watermark-store.test.ts",
      "test/state/blocked-write-store.test.ts",
    ],
  },
  // The words of messages someone else wrote that the host filed as the owner's, and the prompt
  // files found to hold them (a forward OpenClaw's memory promoted into MEMORY.md). A bug here
  // lets such a file be read as the owner's.
  "foreign-words": {
    gate: 90,
    mutate: ["src/core/foreign-words.ts", "src/state/foreign-words-store.ts"],
    tests: ["test/core/foreign-words.test.ts", "test/guard/foreign-words.test.ts"],
  },
  // The guard's durable state: the session watermarks (and the quarantine a corrupt file puts every
  // session in), the staged memory-file writes, what the host loads as instructions, and how a
  // state file is read and written. A bug here resets a session to a more trusted level.
  "state-stores": {
    mutate: [
      "src/state/watermark-store.ts",
      "src/state/quarantine.ts",
      "src/state/blocked-write-store.ts",
      "src/state/host-protected-files.ts",
      "src/state/state-file-read.ts",
      "src/state/atomic-file.ts",
      "src/state/stale-temp-files.ts",
    ],
    tests: [
      "test/state/watermark-store.test.ts",
      "test/state/blocked-write-store.test.ts",
      "test/state/state-file-faults.test.ts",
      "test/state/parsers.test.ts",
      "test/state/watermark-file.test.ts",
      "test/state/workspace-memory-files.test.ts",
      "test/state/blocked-writes-display.test.ts",
      "test/guard/staged-write-rules.test.ts",
      "test/guard/guard-session-rules.test.ts",
    ],
  },
  // The owner's answers to held calls and the pins of a server's tools, as files every front end
  // shares: who may write an answer, which answer applies to which call, how a holder waits for
  // it, the console's presence, and the pinned and held tool definitions.
  "state-approvals": {
    mutate: ["src/state/pending-approval-store.ts", "src/state/approval-answer-wait.ts", "src/state/console-presence.ts", "src/state/tool-pin-store.ts"],
    tests: [
      "test/state/pending-approval-store.test.ts",
      "test/state/approval-answer-wait.test.ts",
      "test/state/console-presence.test.ts",
      "test/state/tool-pin-store.test.ts",
      "test/guard/held-calls.test.ts",
      "test/guard/held-call-answer-rules.test.ts",
      "test/adapters/openclaw/held-call-inbox.test.ts",
    ],
  },
  // The guard's decisions: the per-call checks that join the engine to a turn's state, the
  // fail-safe decision when a check throws, what a call's output is worth, and how a stored owner
  // answer applies to a held call.
  guard: {
    gate: 90,
    mutate: ["src/guard.ts", "src/guard-config.ts", "src/guard-fail-safe.ts", "src/guard-call-output.ts", "src/guard-held-calls.ts", "src/core/gate-files.ts", "src/core/command-files.ts"],
    // Its own tests, and the fast ones that drive it through a front end (in-process, no host). Not
    // the MCP proxy's: its depth-limit test measures a stack that instrumented code deepens.
    tests: [
      "test/guard/**/*.test.ts",
      "test/core/config-limits.test.ts",
      "test/core/command-files.test.ts",
      "test/core/designated-records.test.ts",
      "test/fuzz/guard.fuzz.test.ts",
      "test/state/state-file-faults.test.ts",
      "test/state/file-labels.test.ts",
      "test/adapters/openclaw/provenant-plugin.test.ts",
      "test/adapters/openclaw/held-call-inbox.test.ts",
      "test/adapters/claude-code/claude-code-hooks.test.ts",
    ],
  },
  // What the guard knows of a host's tools: each host's catalogue (which tools read, write, run
  // commands, send, what their output is worth), the paths a file tool's call lands on as the host
  // reads them, the calls Tool Search wraps, what a session has read, and OpenClaw's side of a
  // decision (the host's approval prompt, which wrapped call came from which).
  "host-tools": {
    mutate: [
      "src/core/tool-catalogue.ts",
      "src/core/code-mode-script.ts",
      "src/core/host-catalogue.ts",
      "src/core/decided-calls.ts",
      "src/core/session-content.ts",
      "src/core/write-targets.ts",
      "src/core/host-paths.ts",
      "src/adapters/openclaw/tool-verdict.ts",
      "src/adapters/openclaw/host-calls.ts",
      "src/adapters/openclaw/tool-surface.ts",
    ],
    tests: [
      "test/core/**/*.test.ts",
      "test/guard/**/*.test.ts",
      "test/fuzz/guard.fuzz.test.ts",
      "test/adapters/openclaw/provenant-plugin.test.ts",
      "test/adapters/openclaw/held-call-inbox.test.ts",
      "test/adapters/openclaw/manifest.test.ts",
      "test/adapters/openclaw/host-calls.test.ts",
      "test/adapters/openclaw/tool-verdict.test.ts",
      "test/adapters/openclaw/tool-surface.test.ts",
      "test/adapters/claude-code/claude-code-hooks.test.ts",
    ],
  },
  // What a command's output is worth from its words: the shell classifier, the values a script's
  // variables hold, what a local program runs or reads by its options and script, which files
  // a patch-printing git command shows, and a file's trust by its path.
  "output-trust": {
    mutate: ["src/core/exec-trust.ts", "src/core/shell-variables.ts", "src/core/embedded-commands.ts", "src/core/option-values.ts", "src/guard-git-changes.ts", "src/core/file-trust.ts", "src/core/brace-expansion.ts", "src/core/saved-outputs.ts"],
    tests: ["test/core/exec-trust.test.ts", "test/core/embedded-commands.test.ts", "test/guard/call-output-rules.test.ts", "test/core/file-trust.test.ts", "test/core/brace-expansion.test.ts", "test/core/saved-outputs.test.ts"],
  },
  // Whose words an OpenClaw turn carries: the turn's origin, the host's runtime context (and the
  // messages of the chat the session's transcript holds), what it
  // inlines in the message (and appends to it: link understanding), a message it steers into a
  // running turn, the files its system prompt holds, and where the host is installed.
  "openclaw-context": {
    mutate: ["src/adapters/openclaw/runtime-context.ts", "src/adapters/openclaw/session-transcript.ts", "src/adapters/openclaw/turn-origin.ts", "src/adapters/openclaw/prompt-files.ts", "src/adapters/openclaw/host-installation.ts", "src/adapters/openclaw/inlined-content.ts", "src/adapters/openclaw/link-understanding.ts", "src/adapters/openclaw/host-config.ts", "src/adapters/openclaw/steered-messages.ts", "src/adapters/openclaw/memory-marks.ts", "src/adapters/openclaw/borrowed-context.ts", "src/adapters/openclaw/startup-notes.ts", "src/adapters/openclaw/added-context.ts", "src/adapters/openclaw/boot-check.ts", "src/adapters/openclaw/host-log-file.ts"],
    tests: ["test/adapters/openclaw/added-context.test.ts", "test/adapters/openclaw/boot-check.test.ts", "test/adapters/openclaw/host-log-file.test.ts", "test/adapters/openclaw/steered-messages.test.ts", "test/adapters/openclaw/memory-marks.test.ts", "test/adapters/openclaw/borrowed-context.test.ts", "test/adapters/openclaw/startup-notes.test.ts", "test/adapters/openclaw/runtime-context.test.ts", "test/adapters/openclaw/session-transcript.test.ts", "test/adapters/openclaw/turn-origin.test.ts", "test/adapters/openclaw/provenant-plugin.test.ts", "test/adapters/openclaw/prompt-files.test.ts", "test/adapters/openclaw/inlined-content.test.ts", "test/adapters/openclaw/link-understanding.test.ts", "test/adapters/openclaw/host-config.test.ts"],
  },
  // The OpenClaw plugin's glue: which hook hands the guard what (the turn, its sender, each call
  // and its result), the owner's commands, the held-call inbox, which sessions a key names, and
  // the runtimes it cannot protect. A slip here is a bypass however right the guard is.
  "openclaw-plugin": {
    mutate: [
      "src/adapters/openclaw/provenant-plugin.ts",
      "src/adapters/openclaw/held-call-inbox.ts",
      "src/adapters/openclaw/session-directory.ts",
      "src/adapters/openclaw/runtime-gaps.ts",
      "src/adapters/openclaw/slash-commands.ts",
    ],
    tests: ["test/adapters/openclaw/*.test.ts"],
  },
  // What a Claude Code session's context holds beyond its tool calls: the hook events onto the
  // guard, the @-mentions of a prompt, what a prompt came with beside its text, the instruction
  // files and auto-memory notes Claude Code loads itself and the directories it was launched with.
  "claude-code-context": {
    mutate: [
      "src/adapters/claude-code/claude-code-hooks.ts",
      "src/adapters/claude-code/instruction-files.ts",
      "src/adapters/claude-code/at-paths.ts",
      "src/adapters/claude-code/launch-directories.ts",
      "src/adapters/claude-code/prompt-attachments.ts",
      "src/adapters/claude-code/auto-memory.ts",
      "src/adapters/claude-code/settings-files.ts",
      "src/adapters/claude-code/unjudged-content.ts",
      "src/adapters/claude-code/turn-messages.ts",
      "src/adapters/claude-code/loaded-tools.ts",
    ],
    tests: [
      "test/adapters/claude-code/claude-code-hooks.test.ts",
      "test/adapters/claude-code/instruction-files.test.ts",
      "test/adapters/claude-code/at-paths.test.ts",
      "test/adapters/claude-code/launch-directories.test.ts",
      "test/adapters/claude-code/prompt-attachments.test.ts",
      "test/adapters/claude-code/auto-memory.test.ts",
      "test/adapters/claude-code/unjudged-content.test.ts",
      "test/adapters/claude-code/turn-messages.test.ts",
      "test/adapters/claude-code/loaded-tools.test.ts",
    ],
  },
  // The MCP proxy: which messages it reads as which, which calls reach the server, which answers
  // reach the client and what enters the graph, and the arguments that name its own state.
  "mcp-proxy": {
    mutate: ["src/adapters/mcp/mcp-proxy.ts", "src/adapters/mcp/json-rpc.ts", "src/adapters/mcp/repeated-member-name.ts", "src/adapters/mcp/own-state-paths.ts", "src/adapters/mcp/listed-content.ts", "src/adapters/mcp/tool-definition.ts", "src/adapters/mcp/input-requests.ts"],
    tests: ["test/adapters/mcp/mcp-proxy.test.ts", "test/adapters/mcp/repeated-member-name.test.ts", "test/adapters/mcp/own-state-paths.test.ts", "test/adapters/mcp/listed-content.test.ts", "test/adapters/mcp/input-requests.test.ts"],
  },
  // Remote MCP servers: the Streamable HTTP upstream (which answers reach the proxy, what is sent
  // where, which requests get an error), the event-stream reader, the URL and header checks, and
  // the client configuration rewriting that installs the proxy.
  "mcp-remote": {
    mutate: ["src/adapters/mcp/http-upstream.ts", "src/adapters/mcp/event-stream.ts", "src/adapters/mcp/remote-server.ts", "src/adapters/mcp/client-config.ts"],
    tests: ["test/adapters/mcp/http-upstream.test.ts", "test/adapters/mcp/event-stream.test.ts", "test/adapters/mcp/remote-server.test.ts", "test/adapters/mcp/client-config.test.ts", "test/fuzz/mcp-remote.fuzz.test.ts"],
  },
  // Message authentication: the envelope, its MAC (with the precomputed outer HMAC) and token, and
  // the tool-result MACs, against the unit, known-answer and property tests that exercise them.
  auth: {
    gate: 90,
    mutate: [
      "src/auth/envelope.ts",
      "src/auth/envelope-mac.ts",
      "src/auth/envelope-token.ts",
      "src/auth/hmac-outer.ts",
      "src/auth/tool-result-mac.ts",
    ],
    tests: [
      "test/auth/envelope.test.ts",
      "test/auth/envelope-token.test.ts",
      "test/auth/envelope-token-rules.test.ts",
      "test/auth/tool-result-mac.test.ts",
      "test/auth/rfc-001-table.test.ts",
      "test/auth/properties.test.ts",
      "test/auth/envelope-rules.test.ts",
      "test/auth/message-mac-buffers.test.ts",
      "test/auth/mac-rules.test.ts",
    ],
  },
  // Intent scopes and what else a turn's owner message authorises: the action classes a message
  // grants, the gate that holds a call outside them, tool results the model fabricated, claims a
  // result's MAC grounds, and the key ring and key file the MACs use.
  "auth-intent": {
    gate: 90,
    mutate: [
      "src/auth/intent-scope.ts",
      "src/auth/intent-scope-gate.ts",
      "src/auth/action-scope.ts",
      "src/auth/intent-inference.ts",
      "src/auth/fabricated-tool-results.ts",
      "src/auth/grounded-claims.ts",
      "src/auth/key-ring.ts",
      "src/auth/key-file-format.ts",
      "src/auth/key-file.ts",
    ],
    tests: [
      "test/auth/intent-scope.test.ts",
      "test/auth/rfc-001-table.test.ts",
      "test/auth/fabricated-tool-results.test.ts",
      "test/auth/properties.test.ts",
      "test/auth/tool-result-mac.test.ts",
      "test/auth/key-file.test.ts",
      "test/auth/inbound-authenticator.test.ts",
      "test/auth/envelope.test.ts",
      "test/auth/envelope-token.test.ts",
      "test/auth/mac-rules.test.ts",
    ],
  },
  // Replay protection for envelopes.
  "auth-replay": {
    mutate: ["src/auth/replay-cache.ts"],
    tests: ["test/auth/replay-cache.test.ts", "test/auth/envelope.test.ts", "test/auth/replay-cache-rules.test.ts"],
  },
  // Who a turn comes from: inbound classification, session keys, inter-agent requesters.
  "auth-session": {
    gate: 90,
    mutate: ["src/auth/inbound-authenticator.ts", "src/auth/session-key.ts", "src/auth/requester.ts", "src/auth/message-source.ts", "src/auth/envelope-markers.ts"],
    tests: ["test/auth/*.test.ts", "!test/auth/cli.test.ts", "!test/auth/traces.test.ts"],
  },
  // Prompt-template signing: signatures and their chain of updates, the verification gate, the
  // mutation gate over protected files (which paths a call writes, after links), and
  // update_and_sign.
  sig: {
    mutate: [
      "src/sig/signature.ts",
      "src/sig/ed25519.ts",
      "src/sig/hash.ts",
      "src/sig/verify-file.ts",
      "src/sig/sign-file.ts",
      "src/sig/update-chain.ts",
      "src/sig/update-and-sign.ts",
      "src/sig/verification-gate.ts",
      "src/sig/mutation-gate.ts",
      "src/sig/file-policy.ts",
      "src/sig/file-globs.ts",
      "src/sig/patch-targets.ts",
      "src/sig/real-path.ts",
      "src/sig/project-path.ts",
      "src/sig/sig-store.ts",
      "src/sig/content-store.ts",
      "src/sig/runtime.ts",
      "src/sig/restore-signed.ts",
    ],
    // Every sig test but the CLI's, which runs the built program (a mutant of src/ is not in it),
    // and the guard's, which give the gates a host's calls.
    tests: ["test/sig/*.test.ts", "!test/sig/cli.test.ts", "test/guard/signing.test.ts"],
  },
  // The tamper-evident ledger's verification: the hash chain's entries and their lines, the
  // verifier that walks a chain, the Merkle log's hashes and proofs and their verification, and
  // signed checkpoints. A verifier that accepts a changed log is the bug this module hunts.
  "ledger-verify": {
    mutate: [
      "src/ledger/chain-entry.ts",
      "src/ledger/entry-line.ts",
      "src/ledger/chain-verifier.ts",
      "src/ledger/merkle-hash.ts",
      "src/ledger/merkle-verify.ts",
      "src/ledger/log-proofs.ts",
      "src/ledger/proof-document.ts",
      "src/ledger/checkpoint.ts",
      "src/ledger/checkpoint-keys.ts",
    ],
    // Not the CLI's (it runs the built program), nor those that start processes or workers.
    tests: ["test/ledger/*.test.ts", "!test/ledger/cli.test.ts", "!test/ledger/crash.test.ts", "!test/ledger/parallel-verify.test.ts"],
  },
  broker: {
    gate: 90,
    mutate: ["src/broker/request-mac.ts", "src/broker/caller-verification.ts", "src/broker/arg-rules.ts", "src/broker/replay-cache.ts"],
    // The unit tests of these four files. The daemon tests (test/broker/harness.ts) set
    // process.umask(), which Stryker's vitest runner (worker threads) refuses; each rule here has
    // its own test without a daemon.
    tests: [
      "test/broker/known-answers.test.ts",
      "test/broker/request-mac.test.ts",
      "test/broker/caller-verification.test.ts",
      "test/broker/arg-rules.test.ts",
      "test/broker/go-patterns.test.ts",
      "test/broker/replay-cache.test.ts",
      "test/broker/config.test.ts",
    ],
  },
  // The broker's handling of one connection: the request read, its MAC, freshness and replay
  // checked, the caller verified, the tool's arguments checked against its rules, the tool run and
  // its output framed, every failure answered generically. Its tests start real daemons on real
  // sockets (the umask they set is skipped in Stryker's worker threads: test/mutation/worker-umask.ts).
  // Not the tool-run tests (10 s of large outputs, rerun by nearly every mutant here), nor the
  // interop tests, which run the built wrapper (a mutation sandbox has no dist/).
  "broker-connection": {
    mutate: ["src/broker/broker-connection.ts"],
    tests: [
      "test/broker/daemon-basics.test.ts",
      "test/broker/daemon-checks.test.ts",
      "test/broker/daemon-hardening.test.ts",
      "test/broker/daemon-lifecycle.test.ts",
      "test/broker/caller-identity.test.ts",
      "test/broker/wrapper-executable.test.ts",
      "test/broker/credentials.test.ts",
    ],
  },
  // What the broker reads from peers it does not trust before any MAC is checked: the request
  // line and its fields as the Go daemon's decoder reads them, and the response frames.
  "broker-wire": {
    mutate: ["src/broker/frame.ts", "src/broker/line-splitter.ts", "src/broker/request-scanner.ts", "src/broker/go-json.ts"],
    tests: ["test/broker/wire.test.ts", "test/broker/request-scanner.test.ts", "test/broker/known-answers.test.ts"],
  },
};
