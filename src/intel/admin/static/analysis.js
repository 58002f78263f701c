// A report page's actions: wait for a pending analysis (then reload), enrich the indicators
// through intel (the server asks with the file's TLP/PAP) and follow their verdicts until none is
// pending, showing each inline in the report.
(() => {
  const page = document.getElementById("analysis-page");
  if (!page) return;
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const status = document.getElementById("enrich-status");
  const POLL_MS = 1500;
  const POLLS = 200;

  const readJson = async (url, init) => {
    const res = await fetch(url, { credentials: "same-origin", ...init });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${body.detail ?? res.statusText} (${body.code ?? res.status})`);
    return body;
  };
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function waitForResult() {
    for (let i = 0; i < POLLS; i++) {
      await wait(POLL_MS);
      const a = await readJson(page.dataset.json).catch(() => undefined);
      if (a && a.status !== "pending") return window.location.reload();
    }
  }

  function say(text, bad = false) {
    status.textContent = text;
    status.className = bad ? "bad small" : "muted small";
  }

  const pendingCount = (indicators) => indicators.filter((i) => i.verdict === "pending").length;

  async function followVerdicts(indicators, leftOut) {
    const left = leftOut ? ` ${leftOut} more left out (INTEL_ANALYSIS_ENRICH_MAX).` : "";
    for (let i = 0; i < POLLS && pendingCount(indicators) > 0; i++) {
      say(`${indicators.length} indicators asked; ${pendingCount(indicators)} waiting for the vendors…`);
      await wait(POLL_MS);
      indicators = (await readJson(page.dataset.json)).indicators ?? indicators;
      window.loupeReport.showVerdicts(window.loupeReportState, indicators);
    }
    const found = indicators.filter((i) => i.verdict === "found").length;
    say(
      `${indicators.length} indicators asked: ${found} known to a source.${left} Each verdict is shown in the Indicators tables below.`,
    );
  }

  async function enrich(button) {
    button.disabled = true;
    say("Asking intel about the indicators…");
    try {
      const answer = await readJson(button.dataset.url, {
        method: "POST",
        headers: { "x-csrf-token": csrf },
      });
      window.loupeReport.showVerdicts(window.loupeReportState, answer.indicators);
      const link = document.getElementById("graph-link");
      if (link) link.hidden = false;
      await followVerdicts(answer.indicators, answer.left_out);
    } catch (err) {
      say(`Enrichment failed: ${err.message}`, true);
    } finally {
      button.disabled = false;
    }
  }

  if (page.dataset.status === "pending") waitForResult();
  document.getElementById("enrich")?.addEventListener("click", (event) => enrich(event.currentTarget));
})();
