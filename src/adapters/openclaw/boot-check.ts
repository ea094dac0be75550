import { join } from "node:path";

/**
 * OpenClaw's boot-md hook (`openclaw hooks enable boot-md`) runs the workspace's `BOOT.md` at every
 * start of the gateway, in a run of its own whose prompt carries the file's text and says to
 * follow it exactly: no tool call reads the file, so the guard learns of it from the prompt. Such
 * a run is as trusted as the file (its `fileTrust` rule, its label): a page a command saved there
 * is the page's words at every start. A message the owner types with the same opening only has the
 * file judged as well.
 */
const BOOT_CHECK = /^(?:\[[^\]\n]{1,64}\] )?You are running a boot check\. Follow BOOT\.md instructions exactly\./;

/** The file the host runs at a gateway's start. */
export const BOOT_FILE = "BOOT.md";

/** The file a run's message is OpenClaw's boot check of (in the agent's workspace), or null. */
export function bootCheckFile(message: string, workspaceDir: string): string | null {
  return BOOT_CHECK.test(message) ? join(workspaceDir, BOOT_FILE) : null;
}
