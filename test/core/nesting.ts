/** `leaf` inside `n` nested arrays ([[… leaf]]): a leaf at depth n. */
export function inLists(leaf: unknown, n: number): unknown {
  let out = leaf;
  for (let i = 0; i < n; i++) out = [out];
  return out;
}

/** `leaf` inside `n` nested mappings ({a: {a: … leaf}}). */
export function inMappings(leaf: unknown, n: number): unknown {
  let out = leaf;
  for (let i = 0; i < n; i++) out = { a: out };
  return out;
}
