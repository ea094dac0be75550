import { lessTrusted, type TrustLevel } from "../../core/trust-levels.js";

export interface LayoutInput {
  readonly id: number;
  readonly trust: TrustLevel;
  /** Every parent precedes its child (ids ascending), as in a ProvenanceGraph. */
  readonly parents: readonly number[];
}

export interface PlacedNode {
  readonly id: number;
  readonly layer: number;
  readonly slot: number;
  readonly x: number;
  readonly y: number;
  /** On the path from a root to the node that set the turn's high-water mark. */
  readonly onTaintPath: boolean;
}

export interface PlacedEdge {
  readonly from: number;
  readonly to: number;
  readonly onTaintPath: boolean;
}

export interface Layout {
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
  readonly width: number;
  readonly height: number;
}

export interface LayoutSizes {
  readonly nodeWidth: number;
  readonly nodeHeight: number;
  readonly columnGap: number;
  readonly rowGap: number;
  readonly margin: number;
}

export const DEFAULT_SIZES: LayoutSizes = { nodeWidth: 300, nodeHeight: 34, columnGap: 40, rowGap: 22, margin: 16 };

/** Barycenter sweeps; more change little on the shallow fan-outs turns have. */
const SWEEPS = 4;

/**
 * A layered (Sugiyama-style) drawing of a turn's DAG, top to bottom: each node on the layer one
 * below its deepest parent (longest path), nodes within a layer ordered by the mean position of
 * their parents, then their children, in alternating sweeps to reduce crossings. Linear in nodes
 * and edges per sweep, so a 1,000-node turn lays out in well under a millisecond per sweep.
 * The high-water-mark path is walked back from `taintSource` through the least trusted parent.
 */
export function layoutGraph(nodes: readonly LayoutInput[], taintSource: number | null, sizes: LayoutSizes = DEFAULT_SIZES): Layout {
  const layerOf = new Int32Array(nodes.length);
  const children: number[][] = nodes.map(() => []);
  for (const node of nodes) {
    let layer = 0;
    for (const p of node.parents) {
      layer = Math.max(layer, (layerOf[p] as number) + 1);
      children[p]?.push(node.id);
    }
    layerOf[node.id] = layer;
  }
  const layers: number[][] = [];
  for (const node of nodes) (layers[layerOf[node.id] as number] ??= []).push(node.id);

  const slotOf = new Float64Array(nodes.length);
  const renumber = (layer: readonly number[]): void => layer.forEach((id, i) => (slotOf[id] = i));
  layers.forEach(renumber);
  const mean = (ids: readonly number[], fallback: number): number => (ids.length === 0 ? fallback : ids.reduce((sum, id) => sum + (slotOf[id] as number), 0) / ids.length);
  // Sort keys in one typed array, and layers of one node (most of a turn) skipped: no allocation per layer.
  const key = new Float64Array(nodes.length);
  const byKey = (a: number, b: number): number => (key[a] as number) - (key[b] as number) || a - b;
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const down = sweep % 2 === 0;
    for (let i = 0; i < layers.length; i++) {
      const layer = layers[down ? i : layers.length - 1 - i] as number[];
      if (layer.length < 2) continue;
      for (const id of layer) key[id] = mean(down ? (nodes[id]?.parents ?? []) : (children[id] ?? []), slotOf[id] as number);
      layer.sort(byKey);
      renumber(layer);
    }
  }

  const onPath = new Uint8Array(nodes.length);
  // The parent each path node was reached from: only those edges are the path, not every edge between two of its nodes.
  const pathParent = new Int32Array(nodes.length).fill(-1);
  for (let at = taintSource; at !== null && at >= 0 && at < nodes.length; ) {
    onPath[at] = 1;
    const parents = nodes[at]?.parents ?? [];
    let next: number | null = null;
    for (const p of parents) {
      const pt = nodes[p]?.trust;
      const nt = next === null ? undefined : nodes[next]?.trust;
      if (pt !== undefined && (nt === undefined || lessTrusted(pt, nt))) next = p;
    }
    if (next !== null) pathParent[at] = next;
    at = next;
  }

  const widest = layers.reduce((w, layer) => Math.max(w, layer.length), 0);
  const pitchX = sizes.nodeWidth + sizes.columnGap;
  const pitchY = sizes.nodeHeight + sizes.rowGap;
  const width = sizes.margin * 2 + Math.max(1, widest) * pitchX - sizes.columnGap;
  const placed: PlacedNode[] = nodes.map((node) => {
    const layer = layerOf[node.id] as number;
    const row = layers[layer] as number[];
    const slot = slotOf[node.id] as number;
    // Centre each layer, so a chain runs straight down the middle.
    const offset = ((widest - row.length) * pitchX) / 2;
    return { id: node.id, layer, slot, x: sizes.margin + offset + slot * pitchX, y: sizes.margin + layer * pitchY, onTaintPath: onPath[node.id] === 1 };
  });
  const edges: PlacedEdge[] = nodes.flatMap((node) => node.parents.map((p) => ({ from: p, to: node.id, onTaintPath: pathParent[node.id] === p })));
  return { nodes: placed, edges, width, height: sizes.margin * 2 + Math.max(1, layers.length) * pitchY - sizes.rowGap };
}
