// A files `/analyzer/all` result as the report page shows it: the flat node list of the extractor's
// `extra.tree` made a tree again (parent by path), and each processor's per-node findings hung on
// their node (antivirus detections, YARA matches, what was not scanned, indicators, executable
// facts). Pure data: static/report.js draws it, test/intel/admin/report-model.test.ts checks it.
window.loupeReportModel = (() => {
  const SEPARATOR = " › ";
  const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

  // A name as text that cannot reorder what is around it: bidi controls become `<U+202E>`.
  const shown = (text) =>
    String(text ?? "").replace(
      BIDI_CONTROLS,
      (c) => `<U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}>`,
    );

  // A processor's analysis when it succeeded, else null.
  const analysisOf = (result, name) => {
    const entry = result?.processors?.[name];
    return entry?.success ? (entry.analysis ?? null) : null;
  };

  function newNode(n) {
    return {
      path: String(n.path ?? n.name ?? "upload"),
      name: String(n.name ?? n.path ?? "upload"),
      depth: Number(n.depth ?? 0),
      size: typeof n.size === "number" ? n.size : null,
      type: n.type ?? null,
      status: n.status ?? "analysed",
      reason: n.reason ?? null,
      budget: n.budget ?? null,
      hashes: n.hashes ?? {},
      executable: n.executable ?? null,
      parent: null,
      children: [],
      detections: [],
      matches: [],
      notScanned: [],
      indicators: [],
      // Detections and rule matches in this node and everything under it.
      alerts: 0,
    };
  }

  // The upload's root when the extractor gave no tree (it failed): named after the upload.
  function bareRoot(result) {
    const name =
      analysisOf(result, "antivirus")?.filename ??
      result?.name ??
      Object.values(result?.processors ?? {}).find((e) => e?.analysis?.filename)?.analysis.filename ??
      "upload";
    const extractor = result?.processors?.extractor;
    return newNode({
      path: name,
      name,
      depth: 0,
      status: extractor && !extractor.success ? "failed" : "analysed",
      reason: extractor && !extractor.success ? `the extractor failed: ${extractor.error ?? ""}` : null,
    });
  }

  // Nodes come root first; a node's parent is the node whose path is its own minus its name.
  function treeOf(result) {
    const extractor = analysisOf(result, "extractor");
    const listed = extractor?.extra?.tree?.nodes ?? [];
    const nodes = listed.map(newNode);
    const root = nodes[0] ?? bareRoot(result);
    if (!nodes.length) nodes.push(root);
    if (!root.executable && extractor?.extra?.executable) root.executable = extractor.extra.executable;
    if (!root.type && extractor?.type) root.type = extractor.type;
    const byPath = new Map([[root.path, root]]);
    for (const node of nodes.slice(1)) {
      const cut = node.path.length - node.name.length - SEPARATOR.length;
      const parent = (cut > 0 && byPath.get(node.path.slice(0, cut))) || root;
      node.parent = parent;
      parent.children.push(node);
      if (!byPath.has(node.path)) byPath.set(node.path, node);
    }
    return { root, nodes, byPath };
  }

  // Where a per-node finding goes: its path's node, the root when it names none (the upload's own).
  const nodeAt = (tree, path) => (path ? tree.byPath.get(path) : undefined) ?? tree.root;

  function hangFindings(tree, result) {
    const av = analysisOf(result, "antivirus");
    const detections = av?.extra?.detections ?? [];
    for (const d of detections)
      nodeAt(tree, d.path).detections.push({ engine: "antivirus", name: d.signature });
    if (av?.infected && !detections.length)
      tree.root.detections.push({ engine: "antivirus", name: av.extra?.signature ?? av.description ?? "" });
    for (const n of av?.extra?.not_scanned ?? [])
      nodeAt(tree, n.path).notScanned.push({ processor: "antivirus", reason: n.reason });
    const rules = analysisOf(result, "rulematch");
    for (const m of rules?.matches ?? [])
      nodeAt(tree, m.path).matches.push({ rule: m.rule, namespace: m.namespace, tags: m.tags ?? [] });
    for (const n of rules?.not_scanned ?? [])
      nodeAt(tree, n.path).notScanned.push({ processor: "rulematch", reason: n.reason });
    for (const node of tree.nodes) {
      const own = node.detections.length + node.matches.length;
      for (let at = node; own && at; at = at.parent) at.alerts += own;
    }
  }

  // Indicators grouped by type (URL, DOMAIN, IPV4…), each with the node paths it was found at.
  function indicatorGroups(tree, result) {
    const found = analysisOf(result, "iocs") ??
      analysisOf(result, "extractor")?.extra?.iocs ?? { indicators: [] };
    const groups = new Map();
    for (const ioc of found.indicators ?? []) {
      const paths = [...new Set((ioc.locations ?? []).map((l) => l.path ?? tree.root.path))];
      if (!paths.length) paths.push(tree.root.path);
      const item = { ...ioc, paths };
      for (const path of paths) nodeAt(tree, path).indicators.push(item);
      if (!groups.has(ioc.type)) groups.set(ioc.type, []);
      groups.get(ioc.type).push(item);
    }
    return {
      truncated: found.truncated ?? null,
      groups: [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)),
    };
  }

  // Processors that failed outright: the report says so rather than show their absence as nothing found.
  const failures = (result) =>
    Object.values(result?.processors ?? {})
      .filter((e) => e && !e.success)
      .map((e) => ({ processor: e.processor_name, error: e.error ?? e.error_short ?? "" }));

  function build(result) {
    const tree = treeOf(result);
    hangFindings(tree, result);
    const indicators = indicatorGroups(tree, result);
    const verdict = result?.verdict ?? { level: "incomplete", reasons: [] };
    return { ...tree, indicators, verdict, failures: failures(result) };
  }

  // The nodes from the root down to `node`, both included.
  function lineage(node) {
    const chain = [];
    for (let at = node; at; at = at.parent) chain.unshift(at);
    return chain;
  }

  return { build, lineage, shown, SEPARATOR };
})();
