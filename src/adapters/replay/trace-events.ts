import { z } from "zod";
import { ConfigError } from "../../core/config-error.js";
import { checkConfigShape } from "../../core/config-shape.js";
import { checkInputLimits, InputLimitError, TRACE_EVENT_LIMITS } from "../../core/input-limits.js";

const sender = z.strictObject({
  id: z.string().nullable().optional(),
  isOwner: z.boolean().nullable().optional(),
});

const configEvent = z.strictObject({ event: z.literal("config"), config: z.record(z.string(), z.unknown()) });
const turnEvent = z.strictObject({
  event: z.literal("turn"),
  session: z.string().min(1),
  agent: z.string().min(1).nullable().optional(),
  sender: sender.optional(),
  provider: z.string().nullable().optional(),
  group: z.string().nullable().optional(),
  spawnedBy: z.string().nullable().optional(),
  text: z.string(),
  messageId: z.string().min(1).optional(),
  fresh: z.boolean().optional(),
  /** The gateway's signed form of the text, `[MSG_AUTH:...] text [/MSG_AUTH]`; checked instead of `text` when present. */
  envelope: z.string().optional(),
  kind: z.enum(["channel", "system", "inter-agent"]).optional(),
  jobId: z.string().min(1).nullable().optional(),
  systemPrompt: z.string().optional(),
  inputProvenance: z
    .strictObject({ kind: z.string().optional(), sourceSessionKey: z.string().optional(), sourceChannel: z.string().optional(), sourceTool: z.string().optional() })
    .nullable()
    .optional(),
});
const toolCallEvent = z.strictObject({
  event: z.literal("tool_call"),
  id: z.string().min(1),
  tool: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
  /** The host call that made this one (a Tool Search `tool_call` or code-bridge script). */
  parentId: z.string().min(1).optional(),
});
const toolResultEvent = z.strictObject({
  event: z.literal("tool_result"),
  id: z.string().min(1),
  tool: z.string().min(1),
  output: z.unknown(),
  parentId: z.string().min(1).optional(),
  /** The host's word that the call ran (approved in its own prompt) or did not (never reached a tool). */
  ran: z.boolean().optional(),
});
const responseEvent = z.strictObject({ event: z.literal("response"), text: z.string() });

export const traceEventSchema = z.discriminatedUnion("event", [configEvent, turnEvent, toolCallEvent, toolResultEvent, responseEvent]);
export type TraceEvent = z.output<typeof traceEventSchema>;
export type TurnEvent = z.output<typeof turnEvent>;

export interface NumberedEvent {
  readonly line: number;
  readonly event: TraceEvent;
}

export class TraceError extends Error {
  constructor(readonly line: number, readonly detail: string) {
    super(`trace line ${line}: ${detail}`);
    this.name = "TraceError";
  }
}

/**
 * Parses a replay trace: one JSON object per line, blank lines ignored. The first malformed line
 * stops the parse with its number and the reason; nothing of a bad trace is run.
 */
export function parseTrace(text: string): NumberedEvent[] {
  const events: NumberedEvent[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? "").trim();
    if (raw === "") continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new TraceError(line, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    try {
      checkInputLimits(value, TRACE_EVENT_LIMITS, "the event");
      // The config is checked whole when the guard opens; its reserved keys must be caught
      // here, before the record schema below silently drops a "__proto__".
      if (value !== null && typeof value === "object" && "config" in value) checkConfigShape((value as { config: unknown }).config);
    } catch (error) {
      if (error instanceof InputLimitError) throw new TraceError(line, error.message);
      if (error instanceof ConfigError) throw new TraceError(line, error.message);
      throw error;
    }
    const parsed = traceEventSchema.safeParse(value);
    if (!parsed.success) throw new TraceError(line, describe(parsed.error.issues[0], value));
    if (parsed.data.event === "config" && events.length > 0) {
      throw new TraceError(line, "a config event may only be the first event of a trace");
    }
    events.push({ line, event: parsed.data });
  }
  return events;
}

function describe(issue: z.core.$ZodIssue | undefined, value: unknown): string {
  if (issue === undefined) return "invalid event";
  const path = issue.path.map(String).join(".");
  if (issue.code === "invalid_union" && (path === "" || path === "event")) {
    const kind = value !== null && typeof value === "object" ? (value as Record<string, unknown>).event : undefined;
    return `unknown event ${JSON.stringify(kind)}; expected one of config, turn, tool_call, tool_result, response`;
  }
  if (issue.code === "unrecognized_keys") return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_type") return `${path || "event"}: expected ${issue.expected}`;
  return `${path || "event"}: ${issue.message}`;
}
