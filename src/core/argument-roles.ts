/**
 * What each argument of a side-effecting call decides, which is what its provenance must prove:
 * - `target`: where the effect lands (recipient, account, file/event id, URL, channel, user, credential);
 * - `amount`: how much (money, quantity of a trade);
 * - `content`: free text carried to the target (body, subject, title, description);
 * - `detail`: shape of the effect that is neither (dates, times, flags, counts).
 * A tool or argument the policy does not name is all `target`: the strictest reading.
 */
export const ARGUMENT_ROLES = ["target", "amount", "content", "detail"] as const;
export type ArgumentRole = (typeof ARGUMENT_ROLES)[number];

export type ToolArgumentRoles = Readonly<Record<string, Readonly<Record<string, ArgumentRole>>>>;

/**
 * The role of each scalar of `tool`'s parameters, defaulting to `target`. A scalar's path is looked
 * up with array indices written `[]` (`attachments[].type`), then by its top-level argument name.
 */
export function rolesFor(table: ToolArgumentRoles, tool: string): (path: string) => ArgumentRole {
  const entry = own(table, tool);
  if (entry === undefined) return () => "target";
  return (path) => {
    const generic = path.replace(/\[\d+\]/gu, "[]");
    return own(entry, generic) ?? own(entry, topLevel(path)) ?? "target";
  };
}

function topLevel(path: string): string {
  const cut = path.search(/[.[]/u);
  return cut < 0 ? path : path.slice(0, cut);
}

function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
