import { isMainThread } from "node:worker_threads";

/**
 * Loaded by vitest.mutation.config.ts only. Stryker runs tests in worker threads, where Node refuses
 * to set the process's umask (`process.umask(mask)` throws); the broker daemon sets it around the
 * bind of its socket and the creation of a tool's configuration directory, and chmods each file
 * right after. Here setting it is skipped and the current mask returned: a mutation run can then
 * start real daemons, and what it cannot check (the mode between creation and chmod) the plain
 * suite checks in a process of its own.
 */
if (!isMainThread) {
  const read = process.umask.bind(process);
  process.umask = (() => read()) as typeof process.umask;
}
