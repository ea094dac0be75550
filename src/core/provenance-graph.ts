import { minTrust, type TrustLevel } from "./trust-levels.js";

export type NodeKind = "system_prompt" | "history" | "watermark" | "llm_call" | "tool" | "output" | "reset";

export interface ProvenanceNode {
  readonly id: number;
  readonly kind: NodeKind;
  readonly label: string;
  readonly trust: TrustLevel;
  readonly tool: string | null;
  readonly parents: readonly number[];
}

export class SealedGraphError extends Error {
  constructor(turnId: string) {
    super(`turn ${turnId}: the provenance graph is sealed; no node can be added`);
    this.name = "SealedGraphError";
  }
}

/**
 * The per-turn provenance DAG. Each node records where a piece of the context came from and at
 * what trust. The high-water mark (`maxTaint`) and the node that set it are kept up to date on
 * every add, so a policy decision reads two fields and never scans the graph.
 *
 * Nodes link to the previous node by default (today's agent loops are linear); an explicit
 * `parents` list lets a framework with forked contexts record branches.
 */
export class ProvenanceGraph {
  private readonly nodes: ProvenanceNode[] = [];
  private taint: TrustLevel = "trusted";
  private taintNode: ProvenanceNode | null = null;
  private isSealed = false;

  constructor(readonly turnId: string) {}

  add(kind: NodeKind, label: string, trust: TrustLevel, options: { tool?: string; parents?: readonly number[] } = {}): ProvenanceNode {
    if (this.isSealed) throw new SealedGraphError(this.turnId);
    const id = this.nodes.length;
    const parents = options.parents ?? (id === 0 ? [] : [id - 1]);
    for (const parent of parents) {
      if (!Number.isInteger(parent) || parent < 0 || parent >= id) {
        throw new RangeError(`turn ${this.turnId}: node ${id} names parent ${parent}, which does not precede it`);
      }
    }
    const node: ProvenanceNode = { id, kind, label, trust, tool: options.tool ?? null, parents };
    this.nodes.push(node);
    const next = minTrust(this.taint, trust);
    if (next !== this.taint || this.taintNode === null) {
      this.taint = next;
      this.taintNode = node;
    }
    return node;
  }

  /**
   * The owner's `.reset-trust`: the one way taint goes back up within a turn. It is recorded as
   * a node of its own so the graph shows who lowered the bar and when.
   */
  reset(level: TrustLevel, label: string): ProvenanceNode {
    if (this.isSealed) throw new SealedGraphError(this.turnId);
    const id = this.nodes.length;
    const node: ProvenanceNode = { id, kind: "reset", label, trust: level, tool: null, parents: id === 0 ? [] : [id - 1] };
    this.nodes.push(node);
    this.taint = level;
    this.taintNode = node;
    return node;
  }

  get maxTaint(): TrustLevel {
    return this.taint;
  }

  /** The node whose trust set the current high-water mark. */
  get taintSource(): ProvenanceNode | null {
    return this.taintNode;
  }

  get size(): number {
    return this.nodes.length;
  }

  get sealed(): boolean {
    return this.isSealed;
  }

  node(id: number): ProvenanceNode | undefined {
    return this.nodes[id];
  }

  seal(): void {
    this.isSealed = true;
  }

  toJSON(): { turnId: string; maxTaint: TrustLevel; taintSource: number | null; sealed: boolean; nodes: readonly ProvenanceNode[] } {
    return {
      turnId: this.turnId,
      maxTaint: this.taint,
      taintSource: this.taintNode?.id ?? null,
      sealed: this.isSealed,
      nodes: this.nodes,
    };
  }
}
