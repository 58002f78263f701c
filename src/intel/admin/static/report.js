// The report of one file analysis, drawn from the files service's `/analyzer/all` result
// (report-model.js): the verdict first, then the tree as folded <details>, then the indicators by
// type. Built incrementally: a node's facts and children are made only when it is first opened,
// and long child lists a page at a time, so a 1,000-node tree draws at once. Every value from the
// file becomes text (never markup), its bidi controls shown escaped.
window.loupeReport = (() => {
  const M = window.loupeReportModel;
  const HASHES = [
    ["md5", "MD5"],
    ["sha1", "SHA-1"],
    ["sha256", "SHA-256"],
    ["sha512", "SHA-512"],
    ["ssdeep", "ssdeep"],
    ["tlsh", "TLSH"],
  ];
  const STATUS_WORDS = {
    analysed: "analysed",
    encrypted: "encrypted",
    limit: "over a limit",
    failed: "failed",
  };

  // An element with attributes and children; strings become text nodes (bidi controls escaped).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "hidden") node.hidden = true;
      else node.setAttribute(k, v);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? M.shown(child) : child);
    }
    return node;
  }

  function size(bytes) {
    if (bytes === null || bytes === undefined) return "unknown size";
    if (bytes < 1024) return `${bytes} bytes`;
    const [n, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / 1024 / 1024, "MB"];
    return `${n.toFixed(1)} ${unit} (${String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} bytes)`;
  }

  const level = (text, value) => el("span", { class: "assessment", "data-assessment": value }, text);

  // A path the reader can click: opens every node down to it and scrolls there.
  const pathButton = (path) => el("button", { type: "button", class: "link path", "data-path": path }, path);

  function verdictCard(state) {
    const { verdict } = state.model;
    const reasons = verdict.reasons.map((r) =>
      el("li", {}, el("span", { class: "muted" }, r.processor), " ", r.detail, " — ", pathButton(r.path)),
    );
    const failures = state.model.failures.map((f) =>
      el("li", { class: "bad" }, `${f.processor} failed: ${f.error}`),
    );
    return el(
      "section",
      { class: "card verdict", id: "report-verdict", "aria-labelledby": "report-verdict-title" },
      el("h2", { id: "report-verdict-title" }, "Verdict: ", level(verdict.level, verdict.level)),
      reasons.length || failures.length
        ? el("ul", { class: "reasons" }, reasons, failures)
        : el("p", { class: "muted" }, "Every node was analysed completely and nothing was found."),
    );
  }

  function hashRows(hashes) {
    return HASHES.filter(([key]) => hashes?.[key]).flatMap(([key, label]) => [
      el("dt", {}, label),
      el("dd", {}, el("code", { class: "hash" }, hashes[key])),
    ]);
  }

  function statusText(node) {
    const words = STATUS_WORDS[node.status] ?? node.status;
    const why = [node.budget, node.reason].filter(Boolean).join(": ");
    return why ? `${words} (${why})` : words;
  }

  function nodeFacts(node) {
    return el(
      "dl",
      { class: "facts" },
      el("dt", {}, "Path"),
      el("dd", { class: "subject" }, node.path),
      el("dt", {}, "Type"),
      el("dd", {}, node.type ?? "unknown"),
      el("dt", {}, "Size"),
      el("dd", {}, size(node.size)),
      el("dt", {}, "Status"),
      el("dd", { class: node.status === "analysed" ? "" : "bad" }, statusText(node)),
      hashRows(node.hashes),
    );
  }

  function findingsList(node) {
    const items = [
      ...node.detections.map((d) => el("li", { class: "bad" }, `${d.engine}: ${d.name}`)),
      ...node.matches.map((m) =>
        el("li", { class: "bad" }, `YARA rule ${m.rule}${m.tags.length ? ` [${m.tags.join(", ")}]` : ""}`),
      ),
      ...node.notScanned.map((n) => el("li", {}, `not scanned by ${n.processor}: ${n.reason}`)),
    ];
    return items.length ? [el("h4", {}, "Detections"), el("ul", { class: "findings" }, items)] : [];
  }

  function nodeIndicators(node) {
    if (!node.indicators.length) return [];
    return [
      el("h4", {}, "Indicators"),
      el(
        "ul",
        { class: "findings" },
        node.indicators.map((i) =>
          el(
            "li",
            {},
            el("span", { class: "muted" }, i.type),
            " ",
            el("span", { class: "subject" }, i.value),
          ),
        ),
      ),
    ];
  }

  function summaryOf(node) {
    const badges = [];
    if (node.detections.length || node.matches.length)
      badges.push(el("span", { class: "badge bad" }, node.detections.length ? "detected" : "rule match"));
    else if (node.alerts) badges.push(el("span", { class: "badge bad" }, `${node.alerts} inside`));
    if (node.status !== "analysed")
      badges.push(el("span", { class: "badge warn" }, STATUS_WORDS[node.status] ?? node.status));
    const count = node.children.length ? el("span", { class: "count" }, node.children.length) : null;
    return el(
      "summary",
      {},
      el("strong", { class: "name" }, node.name),
      " ",
      el("span", { class: "muted small" }, `${node.type ?? "unknown type"} · ${size(node.size)}`),
      " ",
      badges,
      count,
    );
  }

  return { el, size, level, pathButton, verdictCard, nodeFacts, findingsList, nodeIndicators, summaryOf };
})();

window.loupeReport = ((parts) => {
  const M = window.loupeReportModel;
  const { el } = parts;
  const CHILDREN_PAGE = 100;

  // One node's <details>: only its summary until opened.
  function nodeElement(state, node) {
    const details = el("details", { class: "node", "data-path": node.path }, parts.summaryOf(node));
    state.elements.set(node, details);
    details.addEventListener("toggle", () => details.open && fillNode(state, node));
    return details;
  }

  // The opened node's facts, findings, executable facts and first page of children (once).
  function fillNode(state, node) {
    const details = state.elements.get(node);
    if (!details || details.dataset.filled) return details;
    details.dataset.filled = "1";
    const list = el("ul", { class: "children" });
    details.append(
      el(
        "div",
        { class: "node-body" },
        parts.nodeFacts(node),
        parts.findingsList(node),
        parts.nodeIndicators(node),
        node.executable ? window.loupeExecutable(node.executable, el) : null,
        node.children.length ? list : null,
      ),
    );
    showMoreChildren(state, node, list);
    return details;
  }

  // The next page of a node's children, and a button for the rest.
  function showMoreChildren(state, node, list) {
    const shown = list.querySelectorAll(":scope > li.child").length;
    list.querySelector(":scope > li.more")?.remove();
    const page = node.children.slice(shown, shown + CHILDREN_PAGE);
    const fragment = document.createDocumentFragment();
    for (const child of page) fragment.append(el("li", { class: "child" }, nodeElement(state, child)));
    const left = node.children.length - shown - page.length;
    if (left > 0) {
      const button = el(
        "button",
        { type: "button", class: "secondary" },
        `Show ${Math.min(left, CHILDREN_PAGE)} more of ${left}`,
      );
      button.addEventListener("click", () => showMoreChildren(state, node, list));
      fragment.append(el("li", { class: "more" }, button));
    }
    list.append(fragment);
  }

  // Opens every node from the root down to `path`'s node, drawing what is needed, and shows it.
  function reveal(state, path) {
    const target = state.model.byPath.get(path);
    if (!target) return;
    for (const node of M.lineage(target)) {
      let details = state.elements.get(node);
      while (!details && node.parent) {
        const list = state.elements.get(node.parent).querySelector(":scope > .node-body > ul.children");
        showMoreChildren(state, node.parent, list);
        details = state.elements.get(node);
      }
      details.open = true;
      fillNode(state, node);
    }
    const shown = state.elements.get(target);
    shown.scrollIntoView({ block: "center" });
    shown.querySelector("summary").focus();
  }

  function treeSection(state) {
    const rootDetails = nodeElement(state, state.model.root);
    rootDetails.open = true;
    fillNode(state, state.model.root);
    return el(
      "section",
      { id: "report-tree", "aria-labelledby": "report-tree-title" },
      el(
        "h2",
        { id: "report-tree-title" },
        "Tree ",
        el("span", { class: "count" }, state.model.nodes.length),
      ),
      el("div", { class: "tree" }, rootDetails),
    );
  }

  // The image's thumbnail, when the file is one (the facts are the tree root's).
  function headCard(state, opts) {
    if (!opts.thumbnail) return null;
    const { root } = state.model;
    return el(
      "section",
      { class: "card report-head" },
      el("img", { class: "thumbnail", src: opts.thumbnail, alt: `Thumbnail of ${M.shown(root.name)}` }),
    );
  }

  // Draws `result` into `container`; `opts.thumbnail`: the image's thumbnail URL, when there is one.
  function render(container, result, opts = {}) {
    const state = {
      model: M.build(result),
      elements: new Map(),
      verdicts: new Map(),
      prefix: opts.prefix ?? "",
    };
    container.replaceChildren(
      ...[parts.verdictCard(state), headCard(state, opts)].filter(Boolean),
      treeSection(state),
      window.loupeReportIndicators.section(state, parts),
    );
    container.addEventListener("click", (event) => {
      const button = event.target.closest?.("button.path[data-path]");
      if (button) reveal(state, button.dataset.path);
    });
    performance.mark("loupe-report-rendered");
    return state;
  }

  // Each indicator's verdict inline (rows not drawn yet take theirs when drawn).
  const showVerdicts = (state, verdicts) => window.loupeReportIndicators.showVerdicts(state, parts, verdicts);

  return { render, showVerdicts, reveal };
})(window.loupeReport);
