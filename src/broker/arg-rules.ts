import { RE2JS } from "re2js";

/**
 * `blocked_args` / `allowed_args` rules. Patterns are Go regular expressions compiled by an RE2
 * engine (re2js), so each one means exactly what it means in the reference (`\A`, `\z`, `[[:space:]]`,
 * `\pL`, `\Q...\E`, inline flags; `.` matches `\r` and U+2028; `\s`, `\d`, `\w`, `\b` are ASCII) and
 * matching takes time linear in the input whatever the pattern: a rule cannot freeze the daemon. A
 * pattern RE2 refuses (look-around, back-references) is a config error. Match modes:
 * - `arg` (default): the pattern is searched in each argument; a blocked rule hits when any argument
 *   matches, an allowed rule only when there is at least one argument and every argument matches.
 * - `command`: the pattern is searched in the arguments joined by single spaces.
 * - `argv` (allowed_args only): a list of patterns, each anchored to a whole argument; the rule matches
 *   when there are exactly as many arguments as patterns and each matches the one in its position.
 */
export type MatchMode = "arg" | "command" | "argv";

/** A compiled Go pattern: `test` searches the text as Go's MatchString would. */
export interface GoPattern {
  readonly source: string;
  test(text: string): boolean;
}

export interface ArgRule {
  readonly match: MatchMode;
  readonly message: string;
  readonly pattern?: GoPattern;
  readonly argv?: readonly GoPattern[];
}

export class PatternError extends Error {}

function compileRe2(source: string): RE2JS {
  try {
    return RE2JS.compile(source);
  } catch (error) {
    throw new PatternError(`pattern ${JSON.stringify(source)} is not a valid Go (RE2) regular expression: ${(error as Error).message}`);
  }
}

/** Compiles one Go pattern, or throws PatternError naming what is wrong. */
export function compileGoPattern(source: string, anchored = false): GoPattern {
  // Compiling the bare pattern first proves it is one closed expression, so anchoring it cannot be
  // escaped by unbalanced parentheses such as "a)|(.*".
  const bare = compileRe2(source);
  const re = anchored ? compileRe2(`\\A(?:${source})\\z`) : bare;
  // The tool receives arguments as UTF-8, where a lone surrogate becomes U+FFFD; Go's strings hold
  // that same text, so the rule sees it too.
  return { source, test: (text) => re.test(wellFormed(text)) };
}

function wellFormed(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

function ruleMatches(rule: ArgRule, args: readonly string[], allowing: boolean): boolean {
  if (rule.match === "argv") {
    const argv = rule.argv ?? [];
    return args.length === argv.length && argv.every((re, i) => re.test(args[i] as string));
  }
  const re = rule.pattern as GoPattern;
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
