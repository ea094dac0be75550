/**
 * `blocked_args` / `allowed_args` rules. Patterns use the reference's Go (RE2) syntax; the subset that
 * means the same in JavaScript is accepted: leading inline flags such as `(?i)` become RegExp flags and
 * `(?P<name>` becomes `(?<name>`. Match modes:
 * - `arg` (default): the pattern is searched in each argument; a blocked rule hits when any argument
 *   matches, an allowed rule only when there is at least one argument and every argument matches.
 * - `command`: the pattern is searched in the arguments joined by single spaces.
 * - `argv` (allowed_args only): a list of patterns, each anchored to a whole argument; the rule matches
 *   when there are exactly as many arguments as patterns and each matches the one in its position.
 */
export type MatchMode = "arg" | "command" | "argv";

export interface ArgRule {
  readonly match: MatchMode;
  readonly message: string;
  readonly pattern?: RegExp;
  readonly argv?: readonly RegExp[];
}

export class PatternError extends Error {}

/** Compiles one Go-style pattern to a RegExp, or throws PatternError naming what is wrong. */
export function compileGoPattern(source: string, anchored = false): RegExp {
  let body = source;
  let flags = "";
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead !== null) {
    for (const f of lead[1] as string) {
      if (f === "U") throw new PatternError(`pattern ${JSON.stringify(source)}: the (?U) flag has no JavaScript equivalent`);
      if (!flags.includes(f)) flags += f;
    }
    body = body.slice(lead[0].length);
  }
  body = body.replace(/\(\?P</g, "(?<");
  try {
    // Compiling the bare pattern first proves it is one closed expression, so anchoring it cannot be
    // escaped by unbalanced parentheses such as "a)|(.*".
    const bare = new RegExp(body, flags);
    return anchored ? new RegExp(`^(?:${body})$`, flags) : bare;
  } catch (error) {
    throw new PatternError(`pattern ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
}

function ruleMatches(rule: ArgRule, args: readonly string[], allowing: boolean): boolean {
  if (rule.match === "argv") {
    const argv = rule.argv ?? [];
    return args.length === argv.length && argv.every((re, i) => re.test(args[i] as string));
  }
  const re = rule.pattern as RegExp;
  if (rule.match === "command") return re.test(args.join(" "));
  return allowing ? args.length > 0 && args.every((a) => re.test(a)) : args.some((a) => re.test(a));
}

export type ArgVerdict = { readonly allowed: true } | { readonly allowed: false; readonly message: string };

/** Blocked rules first (any hit refuses), then, in allowlist mode, at least one allowed rule must match. */
export function checkArgs(
  args: readonly string[],
  mode: "blocklist" | "allowlist",
  blocked: readonly ArgRule[],
  allowed: readonly ArgRule[],
): ArgVerdict {
  for (const rule of blocked) if (ruleMatches(rule, args, false)) return { allowed: false, message: rule.message };
  if (mode === "allowlist" && !allowed.some((rule) => ruleMatches(rule, args, true))) {
    return { allowed: false, message: allowed[0]?.message ?? "command not allowed" };
  }
  return { allowed: true };
}
