/** A ledger record shaped like the guard's decision records, varied by index, for the ledger benches. */
export function sampleDecisionRecord(i: number): Record<string, unknown> {
  return {
    event: "decision",
    session: `agent:main:telegram:${i % 13}`,
    tool: ["web_fetch", "exec", "message_send"][i % 3],
    verdict: i % 4 === 0 ? "confirm" : "allow",
    taint: "external",
    rule: "policy.taint",
    provenance: [{ node: i, tool: "web_fetch", trust: "external" }],
  };
}
