// The report page: draws the analysis embedded in the page (`#analysis`, a JSON block) into
// `#report` with report.js; the thumbnail's URL, when the file is an image, is `data-thumbnail`.
(() => {
  const container = document.getElementById("report");
  const data = document.getElementById("analysis");
  if (!container || !data) return;
  const analysis = JSON.parse(data.textContent);
  window.loupeReportState = window.loupeReport.render(container, analysis.result ?? analysis, {
    thumbnail: container.dataset.thumbnail || undefined,
    prefix: container.dataset.prefix ?? "",
  });
  // After the next frame is laid out and painted: what bench/report measures.
  requestAnimationFrame(() => setTimeout(() => performance.mark("loupe-report-painted")));
})();
