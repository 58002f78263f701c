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
