/**
 * How a threat's name is folded to look its MISP galaxy cluster up: case, spaces and punctuation
 * ignored ("Agent Tesla", "AgentTesla", "agent_tesla" are one name). The generator
 * (scripts/misp-clusters.ts) folds MISP's names the same way.
 */
export const foldClusterName = (name: string): string =>
  name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
