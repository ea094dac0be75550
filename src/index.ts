export * from "./core/trust-levels.js";
export * from "./core/action-classes.js";
export type * from "./core/decision.js";
export type * from "./core/gate.js";
