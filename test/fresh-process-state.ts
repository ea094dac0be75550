// Unit files share a worker's modules (vitest.config.ts), and so its globalThis: the OpenClaw
// plugin's per-process state (adapters/openclaw/process-state.ts) starts empty for each file, as it
// does for each OpenClaw process.
delete (globalThis as Record<symbol, unknown>)[Symbol.for("provenant.openclaw.process-state")];
