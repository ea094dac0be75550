/**
 * What each argument of a side-effecting call decides, which is what its provenance must prove:
 * - `target`: where the effect lands (recipient, account, file/event id, URL, channel, user, credential);
 * - `amount`: how much (money, quantity of a trade);
 * - `content`: free text carried to the target (body, subject, title, description);
 * - `detail`: shape of the effect that is neither (dates, times, flags, counts);
 * - `egress`: a read's request that leaves the machine (a URL, a search query): under taint it must
 *   occur verbatim in one source (argument-egress.ts); in a side-effecting call it is a `target`.
 * A tool or argument the policy does not name is all `target`: the strictest reading.
 */
export const ARGUMENT_ROLES = ["target", "amount", "content", "detail", "egress"] as const;
export type ArgumentRole = Exclude<(typeof ARGUMENT_ROLES)[number], "egress">;
export type ConfiguredRole = (typeof ARGUMENT_ROLES)[number];

export type ToolArgumentRoles = Readonly<Record<string, Readonly<Record<string, ConfiguredRole>>>>;

/**
 * The role of each scalar of `tool`'s parameters, defaulting to `target`. A scalar's path is looked
 * up with array indices written `[]` (`attachments[].type`), then by its top-level argument name.
 */
export function rolesFor(table: ToolArgumentRoles, tool: string): (path: string) => ArgumentRole {
  const entry = own(table, tool);
  if (entry === undefined) return () => "target";
  return (path) => {
    const generic = path.replace(/\[\d+\]/gu, "[]");
    const role = own(entry, generic) ?? own(entry, topLevel(path)) ?? "target";
    return role === "egress" ? "target" : role;
  };
}

/** The top-level arguments of `tool` whose value leaves the machine when the tool runs. */
export function egressArguments(table: ToolArgumentRoles, tool: string): string[] {
  const entry = own(table, tool);
  return entry === undefined ? [] : Object.keys(entry).filter((arg) => own(entry, arg) === "egress");
}

function topLevel(path: string): string {
  const cut = path.search(/[.[]/u);
  return cut < 0 ? path : path.slice(0, cut);
}

function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
