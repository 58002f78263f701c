// Investigate page: follows the intel protocol (201 while vendors are asked, then 200), shows
// progress, then draws the graph with the bundled Mermaid and fills the tables. Everything a
// vendor said is inserted as text (textContent), never as markup.
(() => {
  const form = document.getElementById("investigate");
  if (!form) return;
  const prefix = form.dataset.prefix;
  const retryMs = Number(form.dataset.retryMs) || 2000;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const taxonomy = JSON.parse(document.getElementById("taxonomy").textContent);
  const $ = (id) => document.getElementById(id);
  const superSelect = form.elements.super_type;
  const typeSelect = form.elements.type;

  window.mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    // Labels as SVG text, not HTML: a vendor's "<img onerror=…>" can only ever be drawn as text.
    htmlLabels: false,
    flowchart: { htmlLabels: false, useMaxWidth: true },
    theme: "neutral",
    maxTextSize: 500000,
    maxEdges: 5000,
  });

  function option(value, label) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    return o;
  }

  function fillTypes(initial) {
    const st = taxonomy.find((s) => s.short_name === superSelect.value) ?? taxonomy[0];
    typeSelect.replaceChildren(...(st?.types ?? []).map((t) => option(t.short_name, t.name)));
    if (initial && st?.types.some((t) => t.short_name === initial.toUpperCase()))
      typeSelect.value = initial.toUpperCase();
  }

  superSelect.replaceChildren(...taxonomy.map((s) => option(s.short_name, s.name)));
  const initialSuper = (superSelect.dataset.initial || "").toUpperCase();
  if (taxonomy.some((s) => s.short_name === initialSuper)) superSelect.value = initialSuper;
  fillTypes(typeSelect.dataset.initial);
  superSelect.addEventListener("change", () => fillTypes());

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  let run = 0;

  function showProblem(text) {
    $("problem").textContent = text;
    $("problem").hidden = false;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const mine = ++run;
    const subject = {
      super_type: superSelect.value,
      type: typeSelect.value,
      value: form.elements.value.value.trim(),
    };
    let force = form.elements.force.checked;
    $("problem").hidden = true;
    $("result").hidden = true;
    $("progress").hidden = false;
    $("progress-status").textContent = "Asking…";
    $("progress-detail").textContent = "";
    const started = Date.now();
    const tick = setInterval(() => {
      $("progress-elapsed").textContent = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    }, 100);
    form.querySelector("button").disabled = true;
    try {
      for (;;) {
        const res = await fetch(`${prefix}/investigate/ask`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": csrf },
          body: JSON.stringify({ ...subject, force }),
        });
        if (mine !== run) return;
        // Only the first call forces: repeating a forced call would start another refresh.
        force = false;
        const body = await res.json().catch(() => ({ detail: `HTTP ${res.status}` }));
        if (res.status === 201) {
          $("progress-status").textContent =
            body.status === "PROCESSING" ? "Vendors are being asked" : "Queued";
          $("progress-detail").textContent = body.asking?.length
            ? `Asking: ${body.asking.join(", ")}`
            : "No configured vendor supports this type: the answer will hold the subject alone.";
          await sleep(Math.min(retryMs, 1000));
          continue;
        }
        if (res.status === 200) {
          showResult(subject, body);
          return;
        }
        if (res.status === 502) {
          const errors = Object.entries(body.errors ?? {}).map(([v, e]) => `${v}: ${e}`);
          showProblem(`Every vendor failed. ${errors.join(" · ")}`);
          return;
        }
        if (res.status === 401) {
          showProblem("Your session ended: log in again.");
          return;
        }
        showProblem(`${body.detail ?? "The request failed."}${body.code ? ` (${body.code})` : ""}`);
        return;
      }
    } catch (err) {
      showProblem(`The request failed: ${err.message}`);
    } finally {
      clearInterval(tick);
      if (mine === run) {
        $("progress").hidden = true;
        form.querySelector("button").disabled = false;
      }
    }
  });

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text ?? "";
    if (className) td.className = className;
    row.append(td);
    return td;
  }

  function fill(tableId, items, columns) {
    const tbody = $(tableId).querySelector("tbody");
    tbody.replaceChildren(
      ...items.map((item) => {
        const tr = document.createElement("tr");
        for (const c of columns) cell(tr, c(item));
        return tr;
      }),
    );
    const count = $(`${tableId}-count`);
    if (count) count.textContent = String(items.length);
  }

  async function showResult(subject, doc) {
    $("result").hidden = false;
    $("result-root").textContent = `${doc.root_entity.type.name}: ${doc.root_entity.name}`;
    const q = new URLSearchParams(subject).toString();
    $("raw-link").href = `${prefix}/investigate/raw?${q}`;
    // The root first, then its neighbours (the document lists the root apart).
    const entities = [doc.root_entity, ...doc.entities.filter((e) => e.id !== doc.root_entity.id)];
    const names = new Map(entities.map((e) => [e.id, e.name]));
    fill("entities", entities, [
      (e) => e.name,
      (e) => `${e.super_type.short_name} / ${e.type.short_name}`,
      (e) =>
        Object.entries(e.attributes ?? {})
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n"),
      (e) => e.updated_at,
    ]);
    fill("relations", doc.relations, [
      (r) => names.get(r.obj_from) ?? r.obj_from,
      (r) => r.name,
      (r) => names.get(r.obj_to) ?? r.obj_to,
    ]);
    fill(
      "events",
      [...doc.events, ...(doc.neighbour_events ?? [])],
      [
        (e) => e.name,
        (e) => e.type?.short_name ?? e.type,
        (e) => names.get(e.involved_entity) ?? e.involved_entity,
        (e) => e.first_seen,
        (e) => e.last_seen,
        (e) => String(e.count),
      ],
    );
    fill("sources", Object.entries(doc.sources ?? {}), [
      ([vendor]) => vendor,
      ([, s]) => s.status,
      ([, s]) => s.error ?? "",
      ([, s]) => s.fetched_at ?? "",
    ]);
    const graph = $("graph");
    graph.replaceChildren();
    try {
      const { svg } = await window.mermaid.render(`graph-${run}`, doc.graph);
      graph.innerHTML = svg; // Mermaid's own output in strict mode (sanitised), labels as SVG text.
      decodeLabels(graph);
    } catch (err) {
      graph.textContent = `The graph could not be drawn: ${err.message}`;
    }
  }

  // Labels reach Mermaid with every unsafe character as an entity code ("#60;"); drawn as SVG text
  // they stay "&#60;", so they are decoded here, as text nodes: the characters can never become markup.
  // A label Mermaid wraps is cut into several spans, sometimes inside a code ("&#2" | "39;"), so
  // the text nodes of one label are decoded together, each code's character left where it began.
  function decodeLabels(root) {
    const labels = new Map();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const label = node.parentElement?.closest("text") ?? node.parentElement;
      if (!labels.has(label)) labels.set(label, []);
      labels.get(label).push(node);
    }
    for (const nodes of labels.values()) decodeAcross(nodes);
  }

  function decodeAcross(nodes) {
    const values = nodes.map((n) => n.nodeValue);
    const codes = [...values.join("").matchAll(/&#(\d+);/g)].reverse();
    // Last code first: cutting it leaves the offsets of the earlier ones as they were.
    for (const code of codes) {
      const start = code.index;
      const end = start + code[0].length;
      let offset = 0;
      let placed = false;
      for (let i = 0; i < values.length; i++) {
        const from = Math.max(start, offset) - offset;
        const to = Math.min(end, offset + values[i].length) - offset;
        const length = values[i].length;
        if (from < to) {
          const char = placed ? "" : String.fromCodePoint(Number(code[1]));
          values[i] = values[i].slice(0, from) + char + values[i].slice(to);
          placed = true;
        }
        offset += length;
      }
    }
    nodes.forEach((n, i) => {
      if (n.nodeValue !== values[i]) n.nodeValue = values[i];
    });
  }

  if (form.elements.value.value) form.requestSubmit();
})();
