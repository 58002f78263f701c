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
  const vendorTable = JSON.parse(document.getElementById("vendors").textContent);
  const $ = (id) => document.getElementById(id);
  const superSelect = form.elements.super_type;
  const typeSelect = form.elements.type;

  window.mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    // Labels as SVG text, not HTML: a vendor's "<img onerror=…>" can only ever be drawn as text.
    htmlLabels: false,
    // No wrapping: Mermaid would cut long names mid-word; the graph zooms and pans instead.
    flowchart: { htmlLabels: false, useMaxWidth: true, wrappingWidth: 100000 },
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

  // The type follows the value as it is typed, until the person picks one in the selects.
  const given = taxonomy.some((s) =>
    s.types.some((t) => t.short_name === typeSelect.dataset.initial?.toUpperCase()),
  );
  let overridden =
    given && initialSuper !== "" && typeSelect.value === typeSelect.dataset.initial.toUpperCase();
  superSelect.addEventListener("change", () => {
    overridden = true;
    fillTypes();
  });
  typeSelect.addEventListener("change", () => {
    overridden = true;
    $("detected").textContent = "";
  });
  function detect() {
    if (overridden) return;
    const type = window.loupeDetect(form.elements.value.value);
    const st = taxonomy.find((s) => s.types.some((t) => t.short_name === type));
    if (!type) {
      $("detected").textContent = "";
    } else if (!st) {
      $("detected").textContent = `looks like ${type}, which no enabled vendor looks up`;
    } else {
      superSelect.value = st.short_name;
      fillTypes(type);
      $("detected").textContent = "detected from the value";
    }
  }
  form.elements.value.addEventListener("input", detect);
  detect();

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
    if (text instanceof Node) td.append(text);
    else td.textContent = text ?? "";
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
    window.loupeLabelCells($(tableId));
    const count = $(`${tableId}-count`);
    if (count) count.textContent = String(items.length);
  }

  // One timestamp format: the reader's local time, UTC on hover.
  function localTime(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return iso;
    return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }
  function timeElement(iso) {
    const t = document.createElement("time");
    if (!iso) return t;
    t.dateTime = iso;
    t.title = `${iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC`;
    t.textContent = localTime(iso);
    return t;
  }
  function age(iso) {
    const minutes = Math.round((Date.now() - new Date(iso).getTime()) / 60000);
    if (!Number.isFinite(minutes)) return "";
    if (minutes < 1) return "just now";
    if (minutes < 120) return `${minutes} min ago`;
    if (minutes < 2880) return `${Math.round(minutes / 60)} h ago`;
    return `${Math.round(minutes / 1440)} days ago`;
  }
  function entityLink(e) {
    const a = document.createElement("a");
    a.href = `${prefix}/entities/${encodeURIComponent(e.id)}`;
    a.textContent = e.name;
    return a;
  }
  function listInto(target, nodes, empty) {
    target.replaceChildren();
    if (!nodes.length) {
      target.textContent = empty;
      target.classList.add("muted");
      return;
    }
    target.classList.remove("muted");
    target.append(...nodes.flatMap((n, i) => (i ? [", ", n] : [n])));
  }

  function showVerdict(subject, doc) {
    const v = window.loupeVerdict(doc, vendorTable);
    const badge = $("verdict-assessment");
    badge.textContent = v.assessment;
    badge.dataset.assessment = v.assessment;
    listInto(
      $("verdict-detections"),
      v.detections.map((d) => document.createTextNode(d)),
      "none reported",
    );
    $("verdict-first").replaceChildren(v.firstSeen ? timeElement(v.firstSeen) : "—");
    $("verdict-last").replaceChildren(v.lastSeen ? timeElement(v.lastSeen) : "—");
    listInto($("verdict-threats"), v.threats.map(entityLink), "none named");
    listInto(
      $("verdict-facts"),
      v.facts.map((f) => {
        const span = document.createElement("span");
        span.className = f.signal ? "fact signal" : "fact";
        span.textContent = `${f.label}: ${f.text}`;
        return span;
      }),
      "none",
    );
    listInto(
      $("verdict-tags"),
      v.tags.map((t) => document.createTextNode(t)),
      "none",
    );
    $("verdict-vendors").replaceChildren(
      ...v.vendors.map((vendor) => {
        const li = document.createElement("li");
        const name = document.createElement("strong");
        name.textContent = vendor.id;
        const verdict = document.createElement("span");
        verdict.className = "assessment";
        verdict.dataset.assessment = vendor.verdict;
        verdict.textContent = vendor.verdict;
        li.append(name, " ", verdict, ` · ${vendor.status}${vendor.error ? `: ${vendor.error}` : ""}`);
        if (vendor.fetched_at) {
          const when = timeElement(vendor.fetched_at);
          when.textContent = age(vendor.fetched_at);
          li.append(" · ", when);
        }
        const href = window.loupeVendorPage(vendorTable[vendor.id], subject);
        if (href) {
          const a = document.createElement("a");
          a.href = href;
          a.rel = "noopener noreferrer";
          a.target = "_blank";
          a.textContent = "vendor's page";
          li.append(" · ", a);
        }
        return li;
      }),
    );
  }

  async function showResult(subject, doc) {
    $("result").hidden = false;
    // Nobody was asked (no vendor for the type, none configured, all kept out by TLP/PAP): say so,
    // so that an empty result never reads as "nothing known".
    $("nobody-asked").hidden = !doc.nobody_asked;
    $("nobody-asked").textContent = doc.nobody_asked ? `Nobody was asked: ${doc.nobody_asked.detail}` : "";
    showVerdict(subject, doc);
    $("result-root").textContent = `${doc.root_entity.type.name}: ${doc.root_entity.name}`;
    const q = new URLSearchParams(subject).toString();
    $("raw-link").href = `${prefix}/investigate/raw?${q}`;
    // The address names the subject: Back from an entity page, or a reload, shows this result again.
    history.replaceState(null, "", `?${q}`);
    // The root first, then its neighbours (the document lists the root apart).
    const entities = [doc.root_entity, ...doc.entities.filter((e) => e.id !== doc.root_entity.id)];
    const byId = new Map(entities.map((e) => [e.id, e]));
    const link = (id) => (byId.has(id) ? entityLink(byId.get(id)) : id);
    fill("entities", entities, [
      (e) => entityLink(e),
      (e) => `${e.super_type.short_name} / ${e.type.short_name}`,
      (e) =>
        Object.entries(e.attributes ?? {})
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n"),
      (e) => timeElement(e.updated_at),
    ]);
    fill("relations", doc.relations, [(r) => link(r.obj_from), (r) => r.name, (r) => link(r.obj_to)]);
    // The root's events, then (when the document has them apart) its neighbours'.
    fill("events", (doc.events ?? []).concat(doc.neighbour_events ?? []), [
      (e) => e.name,
      (e) => e.type?.short_name ?? e.type,
      (e) => link(e.involved_entity),
      (e) => timeElement(e.first_seen),
      (e) => timeElement(e.last_seen),
      (e) => String(e.count),
    ]);
    fill("sources", Object.entries(doc.sources ?? {}), [
      ([vendor]) => vendor,
      ([, s]) => s.status,
      ([, s]) => s.error ?? "",
      ([, s]) => timeElement(s.fetched_at),
    ]);
    await drawGraph(doc, entities, new Set(), `graph-${run}`);
  }

  // Large graphs come grouped by type (graph-groups.js); a click on a group draws it opened.
  async function drawGraph(doc, entities, opened, id) {
    const graph = $("graph");
    graph.replaceChildren();
    const { text, groups, total } = window.loupeGroupGraph(doc, opened);
    try {
      const { svg } = await window.mermaid.render(`${id}-${opened.size}`, text);
      window.loupeGraph(graph, svg, doc, entities, prefix);
    } catch (err) {
      graph.textContent = `The graph could not be drawn: ${err.message}`;
      return;
    }
    for (const g of graph.querySelectorAll("g.node")) {
      const group = groups.get(/flowchart-(group-\d+)-\d+$/.exec(g.id)?.[1]);
      if (!group) continue;
      g.classList.add("group");
      g.dataset.type = group.type;
      g.setAttribute("role", "button");
      g.addEventListener("click", () => drawGraph(doc, entities, new Set([...opened, group.type]), id));
    }
    if (groups.size > 0) {
      const note = document.createElement("p");
      note.className = "muted small graph-note";
      note.textContent = `${total} entities: some are grouped by type. Click a group to open it.`;
      graph.prepend(note);
    }
  }

  if (form.elements.value.value) form.requestSubmit();
})();
