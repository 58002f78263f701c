// The report's indicators, grouped by type (URL, DOMAIN, IPV4…): each value, the nodes it was found
// in, and its verdict once enriched through intel. A group's rows are drawn when it is opened, a
// page at a time: a thousand URLs in a table would cost seconds of layout for rows nobody reads.
window.loupeReportIndicators = (() => {
  const ROWS_PAGE = 100;
  // Groups this small are open at once; larger ones open on a click.
  const OPEN_UP_TO = 50;
  const key = (type, value) => `${type}\n${value}`;

  // The enrichment's word for an indicator, and how loud to show it (report.js's `level`).
  // "not found" is not "clean": nobody asked knows it, which says nothing of its harm.
  const LOOK = { found: "suspicious", failed: "malicious" };

  function verdictCell(state, parts, item) {
    const v = state.verdicts.get(key(item.type, item.value));
    const { el } = parts;
    if (!v) return el("span", { class: "muted" }, "not asked");
    const sources = Object.entries(v.sources ?? {}).map(([vendor, outcome]) => `${vendor}: ${outcome}`);
    return [
      parts.level(v.verdict.replace("_", " "), LOOK[v.verdict] ?? "unknown"),
      sources.length ? el("div", { class: "muted small" }, sources.join(" · ")) : null,
      v.error ? el("div", { class: "bad small" }, v.error) : null,
      v.request_id
        ? el(
            "div",
            { class: "small" },
            el("a", { href: `${state.prefix}/requests/${encodeURIComponent(v.request_id)}` }, "the request"),
          )
        : null,
    ];
  }

  function row(state, parts, item) {
    const { el } = parts;
    return el(
      "tr",
      { "data-type": item.type, "data-value": item.value },
      el("td", { class: "subject", "data-label": "Value" }, item.value),
      el(
        "td",
        { "data-label": "Found in" },
        item.paths.map((p) => el("div", {}, parts.pathButton(p))),
      ),
      el("td", { class: "indicator-verdict", "data-label": "Verdict" }, verdictCell(state, parts, item)),
    );
  }

  // The next page of a group's rows, and a button for the rest.
  function moreRows(state, parts, items, tbody, after) {
    const shown = tbody.rows.length;
    const page = items.slice(shown, shown + ROWS_PAGE);
    tbody.append(...page.map((item) => row(state, parts, item)));
    const left = items.length - tbody.rows.length;
    after.replaceChildren();
    if (left <= 0) return;
    const button = parts.el(
      "button",
      { type: "button", class: "secondary" },
      `Show ${Math.min(left, ROWS_PAGE)} more of ${left}`,
    );
    button.addEventListener("click", () => moreRows(state, parts, items, tbody, after));
    after.append(button);
  }

  function group(state, parts, type, items) {
    const { el } = parts;
    const details = el(
      "details",
      { class: "indicator-group", "data-type": type },
      el("summary", {}, el("strong", {}, type), " ", el("span", { class: "count" }, items.length)),
    );
    const fill = () => {
      if (details.dataset.filled) return;
      details.dataset.filled = "1";
      const tbody = el("tbody");
      const after = el("div", { class: "more" });
      const head = el("tr", {}, el("th", {}, "Value"), el("th", {}, "Found in"), el("th", {}, "Verdict"));
      details.append(el("table", { class: "indicators" }, el("thead", {}, head), tbody), after);
      moreRows(state, parts, items, tbody, after);
    };
    details.addEventListener("toggle", () => details.open && fill());
    if (items.length <= OPEN_UP_TO) {
      details.open = true;
      fill();
    }
    return details;
  }

  function section(state, parts) {
    const { el } = parts;
    const { groups, truncated } = state.model.indicators;
    const total = groups.reduce((n, [, items]) => n + items.length, 0);
    return el(
      "section",
      { id: "report-indicators", "aria-labelledby": "report-indicators-title" },
      el("h2", { id: "report-indicators-title" }, "Indicators ", el("span", { class: "count" }, total)),
      truncated
        ? el(
            "p",
            { class: "flash error" },
            `The scan was cut by a limit (${truncated}): more may be in the file.`,
          )
        : null,
      total
        ? groups.map(([type, items]) => group(state, parts, type, items))
        : el("p", { class: "muted" }, "No indicator found in the file's text and metadata."),
    );
  }

  // Keeps each verdict, and shows it on the rows already drawn.
  function showVerdicts(state, parts, verdicts) {
    for (const v of verdicts) state.verdicts.set(key(v.type, v.value), v);
    for (const tr of document.querySelectorAll("#report-indicators tr[data-type][data-value]")) {
      const item = { type: tr.dataset.type, value: tr.dataset.value };
      if (state.verdicts.has(key(item.type, item.value)))
        tr.querySelector(".indicator-verdict").replaceChildren(
          ...[verdictCell(state, parts, item)].flat().filter(Boolean),
        );
    }
  }

  return { section, showVerdicts };
})();
