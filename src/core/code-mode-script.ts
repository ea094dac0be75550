/**
 * OpenClaw's Code Mode (`tools.codeMode`; `"auto"` turns it on for models that prefer it) offers
 * the model an `exec` that runs JavaScript, `{code}`, in place of the shell's. The pinned host
 * hands `before_tool_call` `{code, command: code}` so that exec-shaped policies see a command,
 * and runs `code` (it refuses a call whose two differ; a host without Code Mode runs `command`).
 *
 * Such a call's text is a script, not a shell command: read as one, `return 1 + 1;` is the shell's
 * `return` and its output would pass for a local command's. What a script returns is known no
 * better than an unknown program's: beside its tool calls (each of which comes back through the
 * hooks and is decided on its own) it reads through the host's bridge (skills, saved results,
 * paired nodes, MCP namespaces), and the pinned host's sandbox lets a script reach the whole
 * process (docs/openclaw.md, "Tool Search and code mode").
 */
export function codeModeScript(params: Readonly<Record<string, unknown>>): string | null {
  const code = params["code"];
  // Blank too: Code Mode then runs `command` as the script. The pinned host hands the hooks that
  // `command` as `code` as well; a host that did not would have its script read as a shell's.
  return typeof code === "string" ? code : null;
}

/** The output trust of a Code Mode script, with the reason the taint log shows. */
export const CODE_MODE_SCRIPT_TRUST = Object.freeze({
  level: "untrusted" as const,
  reason: "a Code Mode script, which reads past its tool calls (the host's bridge, and beyond its sandbox)",
});
