// Investigate's graph: Mermaid's SVG made explorable. Labels are decoded as text, nodes open their
// entity page, and the drawing fits its box with wheel/button zoom and drag to pan (a viewBox kept
// by hand: ~100 lines did not earn a library). Node ids are read defensively: an entity id, else
// the label "TYPE: name", else the n<index> order of the document's entities.
window.loupeGraph = (() => {
  const MIN_TEXT_SCALE = 0.6; // below this the text is unreadable: start zoomed in and let the reader pan

  // Labels reach Mermaid with unsafe characters as entity codes ("#60;") and are drawn as "&#60;".
  // A code may be cut across two text nodes when Mermaid splits a label: the cut part is carried over.
  function decodeLabels(root) {
    for (const text of root.querySelectorAll("text")) {
      const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
      let carry = "";
      let last = null;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        let value = carry + node.nodeValue;
        const cut = /&#?\d*$/.exec(value);
        carry = cut ? cut[0] : "";
        if (cut) value = value.slice(0, -carry.length);
        node.nodeValue = decode(value);
        last = node;
      }
      if (carry && last) last.nodeValue += decode(carry);
    }
  }
  const decode = (s) => s.replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code)));

  function nodeEntities(doc, entities) {
    const byId = new Map(entities.map((e) => [e.id, e]));
    const byLabel = new Map(
      entities.map((e) => [`${e.type.short_name}: ${e.name}`.replace(/\s+/g, " ").trim(), e]),
    );
    const map = new Map();
    // A node line: `<id>("label")` (entity ids, with dashes) or `<id>["label"]`.
    for (const m of (doc.graph ?? "").matchAll(/^\s*([^\s[\]()"|]+)[[(]"(.*)"[\])]\s*$/gm)) {
      const [, id, label] = m;
      const index = /^n(\d+)$/.exec(id);
      const entity =
        byId.get(id) ??
        byLabel.get(label.replace(/#(\d+);/g, (_, c) => String.fromCodePoint(Number(c)))) ??
        (index ? entities[Number(index[1])] : undefined);
      if (entity) map.set(id, entity);
    }
    return map;
  }

  // Mermaid names a node's group "<render id>-flowchart-<node id>-<n>" (the prefix varies by version).
  function nodeId(g, known) {
    const m = /flowchart-(.+)-\d+$/.exec(g.id);
    if (m && known.has(m[1])) return m[1];
    return [...known.keys()].find((id) => g.id.includes(`-${id}-`));
  }

  function linkNodes(svg, doc, entities, prefix) {
    const map = nodeEntities(doc, entities);
    for (const g of svg.querySelectorAll("g.node")) {
      const entity = map.get(nodeId(g, map));
      if (!entity) continue;
      g.classList.add("linked");
      g.dataset.entity = entity.id;
      g.setAttribute("role", "link");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", `${entity.type.short_name}: ${entity.name}`);
      const open = () => {
        window.location.href = `${prefix}/entities/${encodeURIComponent(entity.id)}`;
      };
      g.addEventListener("click", () => {
        if (!svg.dataset.dragged) open();
      });
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter") open();
      });
    }
  }

  function panZoom(svg) {
    const [x0, y0, w0, h0] = (svg.getAttribute("viewBox") ?? "0 0 100 100").split(/[\s,]+/).map(Number);
    svg.removeAttribute("style");
    svg.setAttribute("width", "100%");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    // Start at a scale that keeps text readable (panning shows the rest), and as tall as the drawing.
    const boxWidth = svg.getBoundingClientRect().width || w0;
    const scale = Math.max(Math.min(boxWidth / w0, 1.5), MIN_TEXT_SCALE);
    const height = Math.max(160, Math.round(Math.min(h0 * scale, window.innerHeight * 0.7)));
    svg.setAttribute("height", String(height));
    let view = { x: x0, y: y0, w: boxWidth / scale, h: height / scale };
    const apply = () => svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
    const zoom = (factor, cx = view.x + view.w / 2, cy = view.y + view.h / 2) => {
      const w = Math.min(Math.max(view.w * factor, w0 / 20), w0 * 4);
      const f = w / view.w;
      view = { x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f, w, h: view.h * f };
      apply();
    };
    const initial = { ...view };
    const fit = () => {
      view = boxWidth / w0 < MIN_TEXT_SCALE ? { x: x0, y: y0, w: w0, h: h0 } : { ...initial };
      apply();
    };
    apply();
    svg.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const r = svg.getBoundingClientRect();
        const s = Math.max(view.w / r.width, view.h / r.height);
        zoom(
          e.deltaY > 0 ? 1.2 : 1 / 1.2,
          view.x + (e.clientX - r.left) * s,
          view.y + (e.clientY - r.top) * s,
        );
      },
      { passive: false },
    );
    let drag = null;
    svg.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, view: { ...view }, moved: false };
      delete svg.dataset.dragged;
    });
    svg.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      drag.moved = true;
      svg.dataset.dragged = "1";
      const r = svg.getBoundingClientRect();
      const s = Math.max(view.w / r.width, view.h / r.height);
      view = { ...view, x: drag.view.x - dx * s, y: drag.view.y - dy * s };
      apply();
    });
    for (const end of ["pointerup", "pointerleave"]) svg.addEventListener(end, () => (drag = null));
    return { zoom, fit };
  }

  function controls(box, pz) {
    const bar = document.createElement("div");
    bar.className = "graph-controls";
    for (const [label, title, act] of [
      ["+", "Zoom in", () => pz.zoom(1 / 1.4)],
      ["−", "Zoom out", () => pz.zoom(1.4)],
      ["Fit", "Fit the whole graph", () => pz.fit()],
    ]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "secondary";
      b.textContent = label;
      b.title = title;
      b.setAttribute("aria-label", title);
      b.addEventListener("click", act);
      bar.append(b);
    }
    box.before(bar);
  }

  return (box, svgMarkup, doc, entities, prefix) => {
    box.previousElementSibling?.classList.contains("graph-controls") && box.previousElementSibling.remove();
    box.innerHTML = svgMarkup; // Mermaid's own output in strict mode (sanitised), labels as SVG text.
    const svg = box.querySelector("svg");
    if (!svg) return;
    decodeLabels(svg);
    linkNodes(svg, doc, entities, prefix);
    controls(box, panZoom(svg));
  };
})();
