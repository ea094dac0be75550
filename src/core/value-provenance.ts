import { rolesFor, type ArgumentRole, type ToolArgumentRoles } from "./argument-roles.js";
import { extractFields, extractRecords, isReference, isWeak, joinTokens, ownerStatements, scalarText, tokenize } from "./argument-matching.js";
import type { ToolOperation } from "./argument-operations.js";
import { fieldNamed, keyHolds, structuredRecords, type StructuredRecord } from "./designated-records.js";
import { TokenRunIndex } from "./token-run-index.js";
import { minTrust, trustRank, type TrustLevel } from "./trust-levels.js";

/**
 * Where a piece of context came from: an owner's message (`owner`), any other inbound message
 * (`message`), or a tool's output (`tool`), at the trust the policy gives it.
 */
export interface ValueSource {
  readonly id: string;
  readonly kind: "owner" | "message" | "tool";
  readonly tool?: string;
  readonly trust: TrustLevel;
  /**
   * The output is a structure the tool serialised itself (`structuredToolOutputs`): its records can
   * be designated by the owner's words (designated-records.ts).
   */
  readonly structured?: boolean;
}

/**
 * How a source matched: `owner-text` (a run of tokens in the owner's own words), `field` (a whole
 * field of a trusted tool output), `text` (a run of tokens anywhere else). Only the first two can
 * make a value trusted; `text` matches are reported so the owner sees every place a value occurs.
 */
export type MatchKind = "owner-text" | "field" | "text";

export interface SourceMatch {
  readonly source: ValueSource;
  readonly how: MatchKind;
}

/** Untrusted text found inside a content argument: a copied run of words, or a reference. */
export interface CarriedFragment {
  readonly text: string;
  readonly reference: boolean;
  readonly sources: readonly ValueSource[];
}

/** One scalar of one argument, with everything its provenance shows. */
export interface ArgumentTrace {
  /** `recipients[0]`, `attachments[1].file_id`: where in the parameters the scalar sits. */
  readonly path: string;
  readonly role: ArgumentRole;
  readonly value: string;
  readonly sources: readonly SourceMatch[];
  /**
   * Where the value is vouched for, as statement keys: an owner sentence (`s<n>`), or one record of
   * a trusted output (`r<n>.<i>`). Values that belong together must share one (see `vouchCall`).
   */
  readonly together: readonly string[];
  /** The least trusted source the value occurs in, or `unmatched` when it occurs in none. */
  readonly leastTrusted: TrustLevel | "unmatched";
  /** The trusted source that vouches for the value, if any. */
  readonly trustedBy: ValueSource | null;
  readonly weak: boolean;
  readonly carried: readonly CarriedFragment[];
  /** True when the role's rule is satisfied: the argument does not depend on untrusted data. */
  readonly determined: boolean;
  /** The rule's finding in words, for the approval prompt and the ledger. */
  readonly finding: string;
  /**
   * For a value the owner designated: per designating statement, the whole field it was designated
   * with. The owner asked for the field whole ("the same participants as"), so the call must carry
   * all of it in the same argument.
   */
  readonly wholeField?: Readonly<Record<string, readonly string[]>>;
}

export interface ValueProvenanceOptions {
  /** Shortest run of words copied from untrusted text that counts as carrying it (default 4). */
  readonly carryRunTokens?: number;
  /**
   * Oldest sources are forgotten beyond this many tokens in all (default 250,000: more words than a
   * model's context window holds, so what is forgotten the model has stopped seeing too).
   */
  readonly maxTokens?: number;
}

interface ObservedSource {
  ref: ValueSource;
  readonly seq: number;
  readonly tokenCount: number;
  /** The raw tool output, kept until its whole fields are first needed (only while trusted). */
  output: unknown;
  /** Whole fields of a tool output; they vouch for values only while the source is trusted. */
  fields: ReadonlySet<string> | null;
  /** The same fields grouped by record (one item of a listed output, or the whole output). */
  records: readonly ReadonlySet<string>[] | null;
  /** The records of a structured output with the key of each field, for designation. */
  structured: readonly StructuredRecord[] | null;
  /** Ids of this owner message's sentences in the statement index. */
  statements: readonly number[];
  ownerEvidence: boolean;
}

const DISPLAY_LIMIT = 120;

/**
 * Provenance per value for one session: which owner messages and tool outputs each string and
 * number in the context came from, at what trust. Pure: the guard feeds it what it observes and
 * asks it to trace the arguments of a side-effecting call.
 *
 * Soundness rules beyond plain matching (docs/argument-provenance.md):
 * - weak values (short numbers, one- or two-character strings) are never vouched for as targets,
 *   and as amounts only by the owner's own words;
 * - a trusted tool output vouches only for whole fields;
 * - echo shadows: every argument of a side-effecting call made under taint is remembered, and a
 *   trusted output observed after it cannot vouch for anything that call wrote (a tool echoing
 *   back, or storing and later returning, what the agent sent it is not a trusted origin).
 * Forgetting is one-way safe: the oldest sources are dropped past the token budget (a value then
 * matches less, so more calls ask), and if shadows must be dropped, no trusted output observed
 * after the oldest dropped one vouches for anything again.
 */
/** What a call-level check found: whether the call as a whole is one the owner asked for. */
export interface CallVouch {
  readonly vouched: boolean;
  readonly finding: string;
}

export class ValueProvenance {
  private readonly sources = new Map<number, ObservedSource>();
  private readonly text = new TokenRunIndex();
  /** Each sentence of each owner message, as its own entry: a statement whose values belong together. */
  private readonly statements = new TokenRunIndex();
  /** The same sentences outside quoted text: where the owner asks for an operation. */
  private readonly requests = new TokenRunIndex();
  private readonly statementTokens = new Map<number, { readonly tokens: readonly string[]; readonly message: number }>();
  private readonly shadows = new TokenRunIndex();
  private readonly shadowKeys = new Map<string, number>();
  private readonly effects = new Set<string>();
  /** Trusted outputs observed after this sequence number vouch for nothing (a shadow was dropped). */
  private shadowCutoff = Number.POSITIVE_INFINITY;
  private readonly carryRun: number;
  private readonly maxTokens: number;
  private seq = 0;

  constructor(options: ValueProvenanceOptions = {}) {
    this.carryRun = Math.max(2, options.carryRunTokens ?? 4);
    this.maxTokens = Math.max(1, options.maxTokens ?? 250_000);
  }

  /** Records that `value` (text or structured output) entered the context from `source`. */
  observe(source: ValueSource, value: unknown): void {
    const tokens = tokenize(flattenText(value)).slice(0, this.maxTokens);
    const seq = this.seq++;
    const ownerEvidence = source.kind === "owner" && source.trust === "trusted";
    const statements: number[] = [];
    if (ownerEvidence) {
      for (const sentence of ownerStatements(flattenText(value))) {
        const id = this.seq++;
        this.statements.add(id, sentence.tokens);
        this.requests.add(id, sentence.request);
        this.statementTokens.set(id, { tokens: sentence.tokens, message: seq });
        statements.push(id);
      }
    }
    this.sources.set(seq, {
      ref: source,
      seq,
      tokenCount: tokens.length,
      output: source.kind === "tool" ? value : undefined,
      fields: null,
      records: null,
      structured: null,
      statements,
      ownerEvidence,
    });
    this.text.add(seq, tokens);
    for (const [oldest, s] of this.sources) {
      if (this.text.size <= this.maxTokens || oldest === seq) break;
      this.sources.delete(oldest);
      this.text.remove(s.seq);
      for (const id of s.statements) {
        this.statements.remove(id);
        this.requests.remove(id);
        this.statementTokens.delete(id);
      }
    }
  }

  /**
   * A message first taken for the owner's turns out to be someone else's words (one the owner
   * forwarded): the sources observed under `id` become a plain message at `level` at best, and
   * their sentences no longer speak for the owner.
   */
  disown(id: string, level: TrustLevel): void {
    for (const s of this.sources.values()) {
      if (s.ref.id !== id) continue;
      s.ref = { ...s.ref, kind: s.ref.kind === "owner" ? "message" : s.ref.kind, trust: minTrust(s.ref.trust, level) };
      s.ownerEvidence = false;
      for (const statement of s.statements) {
        this.statements.remove(statement);
        this.requests.remove(statement);
        this.statementTokens.delete(statement);
      }
      s.statements = [];
    }
  }

  /**
   * The owner's `.reset-trust <level>`: everything observed so far is trusted at least at `level`.
   * Kinds do not change: a non-owner message never speaks in the owner's words.
   */
  raiseTrust(level: TrustLevel): void {
    for (const s of this.sources.values()) {
      if (trustRank(s.ref.trust) > trustRank(level)) s.ref = { ...s.ref, trust: level };
    }
  }

  /**
   * Records the parameters of a side-effecting call made while the context is tainted, so that
   * nothing it writes can come back as trusted. The same value recorded twice keeps its first time.
   */
  recordExecutedCall(params: unknown, taint: TrustLevel): void {
    if (taint === "trusted") return;
    for (const leaf of scalarLeaves(params, "")) {
      const tokens = tokenize(leaf.text).slice(0, this.maxTokens);
      const key = joinTokens(tokens);
      if (tokens.length === 0 || this.shadowKeys.has(key)) continue;
      const seq = this.seq++;
      this.shadowKeys.set(key, seq);
      this.shadows.add(seq, tokens);
    }
    for (const [key, seq] of this.shadowKeys) {
      if (this.shadows.size <= this.maxTokens) break;
      this.shadowKeys.delete(key);
      this.shadows.remove(seq);
      this.shadowCutoff = Math.min(this.shadowCutoff, seq);
    }
  }

  /**
   * Marks an effect (the tool with its targets and amounts, or its content when it has no target)
   * as having run without asking. Returns false when the same effect already did in this session:
   * an owner's request to pay a landlord once does not vouch for paying them twice.
   */
  claimEffect(tool: string, traces: readonly ArgumentTrace[]): boolean {
    const hasTarget = traces.some((t) => t.role === "target");
    const identity = traces.filter((t) => t.role === "target" || t.role === "amount" || (!hasTarget && t.role === "content"));
    const key = JSON.stringify([tool, ...identity.map((t) => [t.path, joinTokens(tokenize(t.value))])]);
    if (this.effects.has(key)) return false;
    this.effects.add(key);
    return true;
  }

  /** Whether `text` occurs whole, as one run of tokens, in one observed source (of any trust). */
  occursWhole(text: string): boolean {
    const tokens = tokenize(text);
    return tokens.length > 0 && this.text.find(tokens).length > 0;
  }

  /**
   * Whether the call as a whole is the owner's, once each value is vouched for:
   * - the owner's words ask for its operation (a sentence of an owner message holds one of its
   *   words in the plain form a request uses, outside quoted text);
   * - the values that decide the effect (targets and amounts) come from one statement: one owner
   *   sentence, with the trusted records that sentence names, or one trusted record. A recipient
   *   vouched for by one sentence and an amount by another were never said together. Content that
   *   is itself vouched for must come from the same owner message as that sentence (or the same
   *   record): an owner writes a message's text for the recipients of that message, often in a
   *   sentence of its own;
   * - an irreversible operation (deleting, removing, moving money) needs that statement to be a
   *   sentence that names the operation itself.
   */
  vouchCall(traces: readonly ArgumentTrace[], operation: ToolOperation): CallVouch {
    const naming = this.statementsNaming(operation);
    if (naming.length === 0) return { vouched: false, finding: `the owner's words never ask to ${operation.name}` };
    const hasTarget = traces.some((t) => t.role === "target");
    const identity = traces.filter((t) => t.together.length > 0 && (t.role === "target" || t.role === "amount" || (t.role === "content" && hasTarget)));
    const candidates = operation.irreversible ? naming.map((id) => `s${id}`) : [...new Set([...naming.map((id) => `s${id}`), ...identity.flatMap((t) => t.together)])];
    const covers = (key: string, t: ArgumentTrace): boolean =>
      t.together.some((k) => k === key || this.joined(key, k) || (t.role === "content" && k === this.messageOf(key)));
    if (candidates.some((key) => identity.every((t) => covers(key, t)))) {
      return { vouched: true, finding: `the owner asked to ${operation.name}, and one statement vouches for ${identity.length === 0 ? "the call" : identity.map((t) => t.path).join(", ")}` };
    }
    const paths = identity.map((t) => t.path).join(", ");
    return {
      vouched: false,
      finding: operation.irreversible
        ? `${operation.name} cannot be undone, and no sentence of the owner's names it together with ${paths}`
        : `${paths} are each vouched for, but not by one owner statement or trusted record: values that belong together must be said together`,
    };
  }

  /** Ids of the owner sentences that ask for the operation: one of its words, outside quoted text. */
  private statementsNaming(operation: ToolOperation): number[] {
    const out = new Set<number>();
    for (const word of operation.words) for (const id of this.requests.find(tokenize(word))) out.add(id);
    return [...out].sort((a, b) => a - b);
  }

  /** The key of the owner message a sentence key belongs to (`m<n>`), or null for a record key. */
  private messageOf(statement: string): string | null {
    if (!statement.startsWith("s")) return null;
    const entry = this.statementTokens.get(Number(statement.slice(1)));
    return entry === undefined ? null : `m${entry.message}`;
  }

  /** Whether owner sentence `statement` names trusted record `record`: a strong field of the record occurs in the sentence. */
  private joined(statement: string, record: string): boolean {
    if (!statement.startsWith("s") || !record.startsWith("r")) return false;
    const words = this.statementTokens.get(Number(statement.slice(1)))?.tokens;
    const [seq, index] = record.slice(1).split(".").map(Number);
    const source = seq === undefined ? undefined : this.sources.get(seq);
    const fields = source === undefined || index === undefined ? undefined : recordsOf(source)[index];
    if (words === undefined || fields === undefined) return false;
    const sentence = joinTokens(words);
    for (const field of fields) {
      const tokens = field.split("\u0001");
      if (!isWeak(tokens) && containsRun(words, tokens, sentence)) return true;
    }
    return false;
  }

  /**
   * Traces every scalar of a call's parameters under the role the policy gives it (default
   * `target`). A call with no target argument acts on the owner's own data (their calendar, their
   * files) and nothing names where it lands; then nothing but its content can show the owner wanted
   * it, so each content argument must itself be trusted data or the owner's words, not merely free
   * of copied untrusted text (a model can paraphrase an injected instruction).
   */
  traceArguments(tool: string, params: Readonly<Record<string, unknown>>, roles: ToolArgumentRoles): ArgumentTrace[] {
    const roleOf = rolesFor(roles, tool);
    const traces: ArgumentTrace[] = [];
    for (const leaf of leaves(params, "")) {
      const role = roleOf(leaf.path);
      if ("text" in leaf) traces.push(this.traceScalar(leaf.path, leaf.text, role));
      else if ("tooDeep" in leaf) traces.push(untraceable(leaf.path, role, "…", "nested too deeply to trace"));
      else if (role === "target" || role === "amount") traces.push(untraceable(leaf.path, role, String(leaf.flag), "a flag: no source can vouch for true or false"));
    }
    const whole = takenWhole(traces);
    if (whole.some((t) => t.role === "target")) return whole;
    return whole.map((t) =>
      t.role !== "content" || !t.determined || t.trustedBy !== null
        ? t
        : { ...t, determined: false, finding: "no target argument, so the content must be the owner's words or trusted data, and it is neither" },
    );
  }

  private traceScalar(path: string, text: string, role: ArgumentRole): ArgumentTrace {
    const tokens = tokenize(text);
    const weak = isWeak(tokens);
    const found = tokens.length === 0 ? [] : this.matches(tokens);
    const vouched = tokens.length === 0 ? null : this.vouch(tokens, found, role, weak);
    const designated = vouched === null && tokens.length > 0 && (role === "target" || role === "amount") ? this.designate(path, tokens) : null;
    const trustedBy = vouched ?? designated?.source ?? null;
    const together = designated !== null ? Object.keys(designated.whole) : trustedBy === null ? [] : this.statementsFor(tokens, found, role, weak);
    const sources = found.map((m) => ({ source: m.observed.ref, how: m.how }));
    const leastTrusted = sources.reduce<TrustLevel | "unmatched">(
      (least, m) => (least === "unmatched" || trustRank(m.source.trust) > trustRank(least) ? m.source.trust : least),
      "unmatched",
    );
    const carried = role === "content" ? this.carriedFragments(tokens) : [];
    const base = { path: display(path), role, value: display(text), together, sources, leastTrusted, trustedBy, weak, carried };
    if (designated !== null) return { ...base, determined: true, finding: designated.finding, wholeField: designated.whole };
    return { ...base, ...judge(role, tokens.length === 0, base) };
  }

  /**
   * A value the owner designated by naming the record it belongs to and the field that holds it
   * (designated-records.ts): "the same participants as the 'Introductory meeting'". Some owner
   * sentence names records of structured outputs (one of a record's fields that is not weak occurs
   * whole in it) and the field (the word of the key that holds what the argument takes), and the
   * value is what every record that sentence names holds under that key, all holding the same values.
   * A value the agent itself wrote under taint before such a record was observed is never designated.
   * Returns the sentences that designate it, which then vouch for it as one statement.
   */
  private designate(path: string, tokens: readonly string[]): { source: ValueSource; whole: Record<string, readonly string[]>; finding: string } | null {
    // Cheap refusals first, so that most calls parse nothing: the value must occur in a structured
    // output, and some owner sentence must name the field the argument takes.
    const argument = lastName(path);
    if (!keyHolds(argument, argument)) return null;
    // The sentence must name the field: the argument's last word is the last word of every key that holds it.
    const sentences = [...this.statementTokens].filter(([, sentence]) => fieldNamed(argument, sentence.tokens));
    if (sentences.length === 0) return null;
    const holders = this.text.find(tokens).map((id) => this.sources.get(id));
    if (!holders.some((s) => s?.ref.kind === "tool" && s.ref.structured === true)) return null;
    const outputs: { observed: ObservedSource; records: readonly StructuredRecord[] }[] = [];
    for (const s of this.sources.values()) if (s.ref.kind === "tool" && s.ref.structured === true) outputs.push({ observed: s, records: structuredOf(s) });
    const key = joinTokens(tokens);
    const whole: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
    let source: ValueSource | null = null;
    for (const [id, sentence] of sentences) {
      const joined = joinTokens(sentence.tokens);
      const named: { observed: ObservedSource; record: StructuredRecord }[] = [];
      for (const o of outputs) {
        for (const record of o.records) {
          if (record.some((f) => !isWeak(f.tokens) && containsRun(sentence.tokens, f.tokens, joined))) named.push({ observed: o.observed, record });
        }
      }
      if (named.length === 0 || named.some((n) => this.shadowed(tokens, n.observed.seq))) continue;
      const held = named.map((n) => {
        const fields = n.record.filter((f) => keyHolds(argument, f.key));
        return [...new Set(fields.map((f) => f.joined))].sort();
      });
      const first = held[0] ?? [];
      if (!first.includes(key) || !held.every((values) => values.length === first.length && values.every((v, i) => v === first[i]))) continue;
      whole[`s${id}`] = first;
      source ??= named[0]?.observed.ref ?? null;
    }
    if (source === null) return null;
    return { source, whole, finding: `designated: the ${argument} of the record the owner's sentence names (${describeSource(source)})` };
  }

  private matches(tokens: readonly string[]): { observed: ObservedSource; how: MatchKind }[] {
    const out: { observed: ObservedSource; how: MatchKind }[] = [];
    const key = joinTokens(tokens);
    for (const id of this.text.find(tokens)) {
      const s = this.sources.get(id);
      if (s === undefined) continue;
      const field = s.ref.trust === "trusted" && s.ref.kind === "tool" && fieldsOf(s).has(key);
      out.push({ observed: s, how: field ? "field" : s.ownerEvidence ? "owner-text" : "text" });
    }
    return out;
  }

  private vouch(tokens: readonly string[], found: readonly { observed: ObservedSource; how: MatchKind }[], role: ArgumentRole, weak: boolean): ValueSource | null {
    for (const m of found) {
      if (m.how === "owner-text" && !(weak && role === "target")) return m.observed.ref;
      if (m.how === "field" && role !== "amount" && !weak && !this.shadowed(tokens, m.observed.seq)) return m.observed.ref;
    }
    return null;
  }

  /** The statements that vouch for a value: the owner sentences that hold it, and the trusted records that have it as a field. */
  private statementsFor(tokens: readonly string[], found: readonly { observed: ObservedSource; how: MatchKind }[], role: ArgumentRole, weak: boolean): string[] {
    const out: string[] = [];
    const key = joinTokens(tokens);
    for (const m of found) {
      if (m.how === "owner-text" && role === "content") out.push(`m${m.observed.seq}`);
      else if (m.how === "owner-text" && !(weak && role === "target")) {
        const inSentence = this.statements.find(tokens).filter((id) => m.observed.statements.includes(id));
        // A value that runs across a sentence end belongs to no sentence of its own: it stands alone.
        out.push(...(inSentence.length > 0 ? inSentence.map((id) => `s${id}`) : [`m${m.observed.seq}`]));
      }
      if (m.how === "field" && role !== "amount" && !weak && !this.shadowed(tokens, m.observed.seq)) {
        recordsOf(m.observed).forEach((fields, i) => {
          if (fields.has(key)) out.push(`r${m.observed.seq}.${i}`);
        });
      }
    }
    return [...new Set(out)];
  }

  private shadowed(tokens: readonly string[], seq: number): boolean {
    return seq > this.shadowCutoff || this.shadows.find(tokens).some((shadow) => shadow < seq);
  }

  /** The sources a run of tokens occurs in: whether the owner said it, and the non-trusted ones. */
  private runSources(run: readonly string[]): { owner: boolean; untrusted: ValueSource[] } {
    let owner = false;
    const untrusted: ValueSource[] = [];
    for (const id of this.text.find(run)) {
      const s = this.sources.get(id);
      if (s === undefined) continue;
      if (s.ownerEvidence) owner = true;
      else if (s.ref.trust !== "trusted") untrusted.push(s.ref);
    }
    return { owner, untrusted };
  }

  private carriedFragments(tokens: readonly string[]): CarriedFragment[] {
    const out: CarriedFragment[] = [];
    const from = new Map<number, Set<ValueSource>>();
    if (tokens.length > 0 && tokens.length < this.carryRun) {
      const whole = this.runSources(tokens);
      if (whole.untrusted.length > 0 && !whole.owner) out.push({ text: display(tokens.join(" ")), reference: false, sources: whole.untrusted });
    }
    for (let i = 0; i + this.carryRun <= tokens.length; i++) {
      const run = this.runSources(tokens.slice(i, i + this.carryRun));
      if (run.owner || run.untrusted.length === 0) continue;
      for (let j = i; j < i + this.carryRun; j++) {
        const set = from.get(j) ?? new Set<ValueSource>();
        for (const h of run.untrusted) set.add(h);
        from.set(j, set);
      }
    }
    let start = -1;
    for (let i = 0; i <= tokens.length; i++) {
      const on = i < tokens.length && from.has(i);
      if (on && start < 0) start = i;
      if (!on && start >= 0) {
        const sources = new Set<ValueSource>();
        for (let j = start; j < i; j++) for (const s of from.get(j) ?? []) sources.add(s);
        out.push({ text: display(tokens.slice(start, i).join(" ")), reference: false, sources: [...sources] });
        start = -1;
      }
    }
    for (const token of new Set(tokens)) {
      if (!isReference(token)) continue;
      const found = this.matches([token]);
      if (this.vouch([token], found, "target", false) !== null) continue;
      out.push({ text: display(token), reference: true, sources: found.map((m) => m.observed.ref) });
    }
    return out;
  }
}

interface JudgeInput {
  readonly role: ArgumentRole;
  readonly sources: readonly SourceMatch[];
  readonly trustedBy: ValueSource | null;
  readonly weak: boolean;
  readonly carried: readonly CarriedFragment[];
}

/**
 * A designated value counts only with the whole field it was designated with: each designating
 * statement whose field the call does not carry whole, in the same argument, is dropped, and a value
 * left with none is not determined. "The same participants as the 'Introductory meeting'" is all of
 * them; an injection that leaves some out is not what the owner asked for.
 */
function takenWhole(traces: readonly ArgumentTrace[]): ArgumentTrace[] {
  const carried = new Map<string, Set<string>>();
  for (const t of traces) {
    const argument = t.path.replace(/\[\d+\]/gu, "[]");
    const set = carried.get(argument) ?? new Set<string>();
    set.add(joinTokens(tokenize(t.value)));
    carried.set(argument, set);
  }
  return traces.map((t) => {
    if (t.wholeField === undefined) return t;
    const here = carried.get(t.path.replace(/\[\d+\]/gu, "[]")) ?? new Set<string>();
    const together = t.together.filter((key) => (t.wholeField?.[key] ?? []).every((v) => here.has(v)));
    if (together.length > 0) return { ...t, together };
    const missing = Object.values(t.wholeField)[0]?.find((v) => !here.has(v)) ?? "";
    return { ...t, together: [], trustedBy: null, determined: false, finding: `${t.finding}, but the call leaves out "${display(missing.split("\u0001").join(" "))}" of that field` };
  });
}

function untraceable(path: string, role: ArgumentRole, value: string, finding: string): ArgumentTrace {
  return { path: display(path), role, value, together: [], sources: [], leastTrusted: "unmatched", trustedBy: null, weak: true, carried: [], determined: false, finding };
}

function judge(role: ArgumentRole, empty: boolean, t: JudgeInput): { determined: boolean; finding: string } {
  if (empty) return { determined: true, finding: "empty" };
  switch (role) {
    case "target":
    case "amount": {
      if (t.trustedBy !== null) return { determined: true, finding: `from ${describeSource(t.trustedBy)}` };
      if (t.sources.length === 0) return { determined: false, finding: "unmatched: occurs in no observed source" };
      const trusted = t.sources.filter((m) => m.source.trust === "trusted");
      if (role === "amount" && trusted.length > 0 && !t.weak) {
        return {
          determined: false,
          finding: `not in the owner's own words: ${trusted.map((m) => describeSource(m.source)).join(", ")} holds it as data, not as how much to pay`,
        };
      }
      if (t.weak && trusted.length > 0) {
        return {
          determined: false,
          finding: `too short to trace: ${trusted.map((m) => describeSource(m.source)).join(", ")} ${
            role === "target" ? "contains the same characters, which proves nothing about a short identifier" : "is not the owner's own words"
          }`,
        };
      }
      const untrusted = t.sources.filter((m) => m.source.trust !== "trusted").map((m) => describeSource(m.source));
      const notes: string[] = [];
      if (trusted.some((m) => m.how === "field")) notes.push("a trusted output has it only as something the agent itself wrote under taint");
      if (trusted.some((m) => m.how === "text")) notes.push("a trusted output has it only inside a larger field");
      const note = notes.length === 0 ? "" : ` (${notes.join("; ")})`;
      return { determined: false, finding: untrusted.length > 0 ? `only from ${untrusted.join(", ")}${note}` : `not vouched for${note}` };
    }
    case "content":
      if (t.carried.length === 0) return { determined: true, finding: "carries no untrusted text" };
      return {
        determined: false,
        finding: `carries ${t.carried
          .map((c) => `${c.reference ? "reference" : "text"} "${c.text}" (${c.sources.length === 0 ? "unmatched" : c.sources.map(describeSource).join(", ")})`)
          .join("; ")}`,
      };
    case "detail":
      return { determined: true, finding: t.trustedBy !== null ? `from ${describeSource(t.trustedBy)}` : "a detail, not traced" };
  }
}

function describeSource(source: ValueSource): string {
  const name = source.kind === "owner" ? "owner message" : source.kind === "message" ? "message" : (source.tool ?? "tool");
  return `${display(name)} ${display(source.id)} (${source.trust})`;
}

/**
 * A value as the approval prompt shows it: control, zero-width and bidi characters escaped (an
 * attacker's value must not draw extra lines or reorder the prompt), quotes escaped, then cut.
 */
function display(text: string): string {
  const escaped = JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length <= DISPLAY_LIMIT ? escaped : `${escaped.slice(0, DISPLAY_LIMIT - 1)}\u2026`;
}

function fieldsOf(s: ObservedSource): ReadonlySet<string> {
  if (s.fields === null) {
    s.records = extractRecords(s.output).map((fields) => new Set(fields));
    s.fields = new Set(extractFields(s.output));
    s.structured = s.ref.structured === true ? structuredRecords(s.output) : [];
    s.output = undefined;
  }
  return s.fields;
}

function structuredOf(s: ObservedSource): readonly StructuredRecord[] {
  fieldsOf(s);
  return s.structured ?? [];
}

/** The argument a path ends in: `participants[2]` → participants, `attachments[0].file_id` → file_id. */
function lastName(path: string): string {
  const segments = path.replace(/\[\d+\]/gu, "").split(".");
  return segments[segments.length - 1] ?? path;
}

function recordsOf(s: ObservedSource): readonly ReadonlySet<string>[] {
  fieldsOf(s);
  return s.records ?? [];
}

/** Whether `run` occurs contiguously in `tokens` (`joined` is `tokens` joined, for a quick rejection). */
function containsRun(tokens: readonly string[], run: readonly string[], joined: string): boolean {
  if (!joined.includes(joinTokens(run))) return false;
  outer: for (let i = 0; i + run.length <= tokens.length; i++) {
    for (let j = 0; j < run.length; j++) if (tokens[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}

/** Every string and number inside a value, with its path; booleans and null carry no provenance. */
const MAX_DEPTH = 64;

/** A leaf of a value: text to trace, a flag (a boolean: no source can supply one), or a subtree too deep to walk. */
type Leaf = { readonly path: string; readonly text: string } | { readonly path: string; readonly flag: boolean } | { readonly path: string; readonly tooDeep: true };

/** Every leaf inside a value, with its path; null is absence and yields nothing. */
function leaves(value: unknown, path: string): Leaf[] {
  const out: Leaf[] = [];
  const walk = (v: unknown, p: string, depth: number): void => {
    if (typeof v === "string" || typeof v === "number" || typeof v === "bigint") out.push({ path: p, text: scalarText(v) });
    else if (typeof v === "boolean") out.push({ path: p, flag: v });
    else if (v === null || typeof v !== "object") return;
    else if (depth >= MAX_DEPTH) out.push({ path: p, tooDeep: true });
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${p}[${i}]`, depth + 1));
    else for (const [k, item] of Object.entries(v)) walk(item, p === "" ? k : `${p}.${k}`, depth + 1);
  };
  walk(value, path, 0);
  return out;
}

/** Every string and number inside a value (what text a source or a shadow holds). */
function scalarLeaves(value: unknown, path: string): { path: string; text: string }[] {
  return leaves(value, path).filter((leaf): leaf is { path: string; text: string } => "text" in leaf);
}

function flattenText(value: unknown): string {
  if (typeof value === "string") return value;
  return scalarLeaves(value, "")
    .map((leaf) => leaf.text)
    .join("\n");
}
