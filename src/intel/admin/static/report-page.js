// The report page: draws the analysis embedded in the page (`#analysis`, a JSON block) into
// `#report` with report.js; the thumbnail's URL, when the file is an image, is `data-thumbnail`.
(() => {
  performance.mark("loupe-report-start");
  const container = document.getElementById("report");
  const data = document.getElementById("analysis");
  if (!container || !data) return;
  const analysis = JSON.parse(data.textContent);
  // A pending or failed analysis has no result to draw (analysis.js waits for it).
  if (analysis.status && analysis.status !== "done") return;
  window.loupeReportState = window.loupeReport.render(container, analysis.result ?? analysis, {
    thumbnail: container.dataset.thumbnail || undefined,
    prefix: container.dataset.prefix ?? "",
  });
  if (analysis.indicators?.length)
    window.loupeReport.showVerdicts(window.loupeReportState, analysis.indicators);
  // After the next frame is laid out and painted: what bench/report measures.
  requestAnimationFrame(() => setTimeout(() => performance.mark("loupe-report-painted")));
})();
