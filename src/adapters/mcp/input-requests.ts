import { isRecord } from "../../core/json-record.js";

/**
 * Protocol revision 2026-07-28 has no requests from server to client: a server that needs the
 * client's input answers a `tools/call`, `resources/read` or `prompts/get` with an
 * `input_required` result, whose `inputRequests` embed the requests earlier revisions sent on
 * their own (an elicitation, a sampling request, the roots), and the client retries the request
 * with its answers. Those embedded requests are for the client and its user, as the requests of
 * earlier revisions were: the proxy passes them as it passes those.
 */

/** The requests a client fulfils itself: the user answers an elicitation; a sampling request is a separate completion; the roots carry no words. */
const CLIENT_FULFILLED: ReadonlySet<string> = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);

/** The fields of an `input_required` result that carry nothing for the model (`_meta` holds the server's description, passed unpinned as in every result). */
const ROUND_TRIP_FIELDS: ReadonlySet<string> = new Set(["resultType", "inputRequests", "requestState", "_meta"]);

/**
 * Whether a result only asks the client for input its user gives: an `input_required` result with
 * no other field, whose every embedded request is one the client fulfils itself. An elicitation
 * counts only when the user answers it (`userAnswersElicitation`: not for a client whose model
 * may). Anything else in it (content, an embedded request of another method) makes it output.
 */
export function asksOnlyTheClient(result: unknown, userAnswersElicitation: boolean): boolean {
  if (!isRecord(result) || result.resultType !== "input_required") return false;
  if (Object.keys(result).some((key) => !ROUND_TRIP_FIELDS.has(key))) return false;
  const requests = result.inputRequests;
  if (requests === undefined) return true;
  if (!isRecord(requests)) return false;
  return Object.values(requests).every(
    (request) => isRecord(request) && typeof request.method === "string" && CLIENT_FULFILLED.has(request.method) && (userAnswersElicitation || request.method !== "elicitation/create"),
  );
}

/** How long a call's question may wait for the client's retry (a person answers it). */
const ROUND_TTL_MS = 10 * 60_000;

/** Questions waiting for a retry, at most: the oldest goes first (its retry is then decided like any call). */
const MAX_OPEN_ROUNDS = 100;

/**
 * Calls the guard let through (allowed, or approved by the owner) that the server answered with a
 * question for the client's user. The client's retry of such a call with the answers is the same
 * operation, already decided: it is not decided again, or the owner of a tainted session would be
 * asked twice for one call. A retry matches only a call of the same tool with the same arguments,
 * carrying the answers (`inputResponses`) or the server's `requestState`, with the `requestState`
 * that call was given; once, and within ten minutes. Anything else is decided as a new call.
 */
export class OpenRounds {
  private readonly open = new Map<string, number>();

  /** A call the guard let through was answered with a question (`result` passed {@link asksOnlyTheClient}). */
  opened(tool: string, args: unknown, result: unknown, now: number): void {
    const key = roundKey(tool, args, isRecord(result) ? result.requestState : undefined);
    if (key === null) return;
    this.open.delete(key);
    this.open.set(key, now);
    if (this.open.size > MAX_OPEN_ROUNDS) {
      const [oldest] = this.open.keys();
      if (oldest !== undefined) this.open.delete(oldest);
    }
  }

  /** Whether a call is the retry of an open round, which it then closes. */
  continues(tool: string, args: unknown, params: unknown, now: number): boolean {
    if (!isRecord(params) || !(isRecord(params.inputResponses) || typeof params.requestState === "string")) return false;
    const key = roundKey(tool, args, params.requestState);
    const at = key === null ? undefined : this.open.get(key);
    if (key === null || at === undefined) return false;
    this.open.delete(key);
    return now - at <= ROUND_TTL_MS;
  }
}

/** The call and the server's state, as one key; null for arguments that cannot be written out (never matched). */
function roundKey(tool: string, args: unknown, requestState: unknown): string | null {
  try {
    return JSON.stringify([tool, args, typeof requestState === "string" ? requestState : null]);
  } catch {
    return null;
  }
}
