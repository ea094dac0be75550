import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { Guard } from "../../src/guard.js";
import { tempWorkspace } from "./helpers.js";

const ROLES = { create_calendar_event: { title: "content", description: "content", start_time: "detail", participants: "target" } } as const;
const INTRO = [
  {
    id_: "24",
    title: "Introductory meeting",
    description: "Introductory meeting with the clients.",
    participants: ["emma@corp.com", "john.mitchell@gmail.com", "martha@gmail.com"],
  },
];
const WHOLE = ["emma@corp.com", "john.mitchell@gmail.com", "martha@gmail.com"];
const ASKED = "Please create a new event 'Follow-up meeting' with the same participants as the 'Introductory meeting' event.";

function open(structuredToolOutputs: string[]): Guard {
  return Guard.open({
    config: {
      toolOutputTaints: { search_calendar_events: "external", create_calendar_event: "trusted" },
      toolActionClasses: { search_calendar_events: "read", create_calendar_event: "write" },
      toolOverrides: { search_calendar_events: { "*": "allow" } },
      toolArgumentRoles: ROLES,
      structuredToolOutputs,
    },
    workspaceDir: tempWorkspace(),
    audit: { record: () => undefined },
  });
}

/** The owner asks for the participants of a record a search returns; the call carries them. */
function followUp(guard: Guard, resultId: string | undefined): { verdict: string; reason: string } {
  guard.beginTurn({ sessionId: "s", sender: { id: "o", isOwner: true }, provider: "telegram", text: ASKED });
  guard.beforeToolCall("s", { ...(resultId ? { id: resultId } : {}), tool: "search_calendar_events", params: { query: "Introductory meeting" } });
  guard.afterToolCall("s", { ...(resultId ? { id: resultId } : {}), tool: "search_calendar_events", output: stringify(INTRO) });
  return guard.beforeToolCall("s", { tool: "create_calendar_event", params: { title: "Follow-up meeting", participants: WHOLE } });
}

describe("argument provenance of tool outputs", () => {
  it("rule: a structured tool output's record the owner names vouches for the call's target; an unstructured one does not", () => {
    const structured = open(["search_calendar_events"]);
    expect(followUp(structured, "c0").verdict).toBe("allow");
    structured.close();
    const plain = open([]);
    expect(followUp(plain, "c0").verdict).toBe("confirm");
    plain.close();
  });

  it("rule: an output reported without a call id is named in the prompt by its turn and tool", () => {
    const guard = open([]);
    const asked = followUp(guard, undefined);
    expect(asked.verdict).toBe("confirm");
    expect(asked.reason).toContain("search_calendar_events s#1/search_calendar_events (external)");
    guard.close();
  });
});
