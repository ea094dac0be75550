/**
 * The two owner-only tools as the model sees them: names, descriptions and JSON Schema
 * parameters, ready for an adapter to register. The runtime implements them (runtime.ts).
 */
export interface SigToolDefinition {
  readonly name: "verify" | "update_and_sign";
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export const VERIFY_TOOL: SigToolDefinition = {
  name: "verify",
  description:
    "Verify the signed instruction templates (no arguments: all of them; this unlocks gated tools for the current turn), " +
    "one template (file), or a signed owner message (message: its signature id <sessionId>:<channel>:<messageId>). " +
    "Returns the signed text with placeholders visible, who signed it and when.",
  parameters: {
    type: "object",
    additionalProperties: false,
    properties: {
      file: { type: "string", description: "A signed template path, relative to the project root." },
      message: { type: "string", description: "The signature id of a signed owner message." },
    },
  },
};

export const UPDATE_AND_SIGN_TOOL: SigToolDefinition = {
  name: "update_and_sign",
  description:
    "Replace the content of a protected workspace file (one with a signed file policy) and re-sign it. " +
    "The change must trace back to a signed source: normally the signed owner message that asked for it.",
  parameters: {
    type: "object",
    additionalProperties: false,
    required: ["file", "content", "reason", "sourceType"],
    properties: {
      file: { type: "string", description: "File path relative to the workspace root." },
      content: { type: "string", description: "The complete new file content." },
      reason: { type: "string", description: "Why the update is being made." },
      sourceType: { type: "string", enum: ["signed_message", "signed_template"] },
      sourceId: { type: "string", description: "Signature id of the source that authorised the change." },
    },
  },
};

export const SIG_OWNER_TOOLS: readonly SigToolDefinition[] = Object.freeze([VERIFY_TOOL, UPDATE_AND_SIGN_TOOL]);
