// Small enhancements shared by the panel's pages (the pages work without them).
document.addEventListener("submit", (event) => {
  const question = event.target.dataset?.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("click", (event) => {
  const button = event.target.closest?.("[data-copy]");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
  navigator.clipboard?.writeText(text).then(() => {
    button.textContent = "Copied";
  });
});

// On a phone, tables become one card per row (admin.css): each cell carries its column's header.
window.loupeLabelCells = (table) => {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll("tbody tr"))
    [...row.children].forEach((td, i) => {
      if (heads[i]) td.dataset.label = heads[i];
    });
};
for (const table of document.querySelectorAll("main table")) window.loupeLabelCells(table);

// One timestamp format: the reader's local time, UTC on hover (the server writes UTC, no script needed).
for (const t of document.querySelectorAll("time[datetime]")) {
  const d = new Date(t.dateTime);
  if (Number.isNaN(d.getTime())) continue;
  t.title = `${t.dateTime.replace("T", " ").replace(/(\.\d+)?Z$/, "")} UTC`;
  t.textContent = d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// Sortable tables: a header is a button that sorts the rows shown by that column (times by their
// UTC value, numbers as numbers, text in the reader's collation); a second click reverses.
function sortKey(td) {
  const time = td?.querySelector("time[datetime]");
  if (time) return time.dateTime;
  return (td?.textContent ?? "").trim();
}
for (const table of document.querySelectorAll("main table.sortable")) {
  const heads = [...table.querySelectorAll("thead th")];
  heads.forEach((th, column) => {
    const label = th.textContent.trim();
    if (!label) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = label;
    th.replaceChildren(button);
    button.addEventListener("click", () => {
      const ascending = th.getAttribute("aria-sort") !== "ascending";
      for (const other of heads) other.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const body = table.tBodies[0];
      const rows = [...body.rows];
      const keys = rows.map((r) => sortKey(r.cells[column]));
      const numeric = keys.every((k) => k !== "" && !Number.isNaN(Number(k)));
      const order = rows.map((r, i) => [r, keys[i]]);
      order.sort(([, a], [, b]) => {
        const c = numeric ? Number(a) - Number(b) : a.localeCompare(b, undefined, { numeric: true });
        return ascending ? c : -c;
      });
      body.append(...order.map(([r]) => r));
    });
  });
}
