/**
 * ES2024's String well-formedness methods. Node 20 has them (and for a one-byte string
 * `isWellFormed` costs nothing), but the project compiles against the ES2023 library.
 */
interface WellFormedMethods {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

export function isWellFormed(s: string): boolean {
  return (s as unknown as WellFormedMethods).isWellFormed();
}

/** Replaces each lone surrogate by U+FFFD. */
export function toWellFormed(s: string): string {
  return (s as unknown as WellFormedMethods).toWellFormed();
}
