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

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Whether a result only asks the client for input its user gives: an `input_required` result with
 * no other field, whose every embedded request is one the client fulfils itself. An elicitation
 * counts only when the user answers it (`userAnswersElicitation`: not for a client whose model
 * may). Anything else in it (content, an embedded request of another method) makes it output.
 */
export function asksOnlyTheClient(result: unknown, userAnswersElicitation: boolean): boolean {
  if (!isObject(result) || result.resultType !== "input_required") return false;
  if (Object.keys(result).some((key) => !ROUND_TRIP_FIELDS.has(key))) return false;
  const requests = result.inputRequests;
  if (requests === undefined) return true;
  if (!isObject(requests)) return false;
  return Object.values(requests).every(
    (request) => isObject(request) && typeof request.method === "string" && CLIENT_FULFILLED.has(request.method) && (userAnswersElicitation || request.method !== "elicitation/create"),
  );
}
