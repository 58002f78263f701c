// The Analyse page: files dropped on the page or chosen, each sent on its own to the panel's
// upload route with the form's password, rules and marking; a file over the server's limit is
// refused here before it is sent, with the limit named. One file sent opens its report; several
// are listed with a link to each report.
(() => {
  const form = document.getElementById("analyse");
  if (!form) return;
  const drop = document.getElementById("drop");
  const input = form.querySelector('input[type="file"]');
  const chosenList = document.getElementById("chosen");
  const sent = document.getElementById("upload-list");
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const maxBytes = Number(form.dataset.maxBytes);
  let chosen = [];

  const item = (text, cls) => {
    const li = document.createElement("li");
    li.textContent = text;
    if (cls) li.className = cls;
    return li;
  };

  function choose(files) {
    chosen = [...files];
    chosenList.replaceChildren(...chosen.map((f) => item(`${f.name} (${f.size} bytes)`)));
  }

  input.addEventListener("change", () => choose(input.files));
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    choose(event.dataTransfer.files);
  });

  // One file to the upload route; the analysis, or why it was refused.
  async function send(file) {
    if (file.size > maxBytes)
      throw new Error(
        `${file.size} bytes is over this server's limit of ${maxBytes} bytes (INTEL_ANALYSIS_MAX_BYTES): not sent.`,
      );
    const body = new FormData();
    for (const name of ["password", "rules", "tlp", "pap"]) {
      const value = form.elements[name].value;
      if (value) body.append(name, value);
    }
    body.append("file", file, file.name);
    const res = await fetch(`${form.dataset.prefix}/analyses/upload`, {
      method: "POST",
      body,
      headers: { "x-csrf-token": csrf },
      credentials: "same-origin",
    });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${answer.detail ?? res.statusText} (${answer.code ?? res.status})`);
    return answer;
  }

  function report(file, analysis) {
    const li = item("");
    const link = document.createElement("a");
    link.href = `${form.dataset.prefix}/analyses/${encodeURIComponent(analysis.id)}`;
    link.textContent = file.name;
    li.append(link, ` — ${analysis.status === "done" ? `from storage: ${analysis.verdict}` : "analysing…"}`);
    return li;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!chosen.length) {
      chosenList.replaceChildren(item("Choose or drop at least one file.", "bad"));
      return;
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    document.getElementById("uploads").hidden = false;
    const done = [];
    for (const file of chosen) {
      const line = sent.appendChild(item(`${file.name}: sending…`));
      try {
        const analysis = await send(file);
        done.push(analysis);
        line.replaceWith(report(file, analysis));
      } catch (err) {
        line.replaceChildren(`${file.name}: refused — ${err.message}`);
        line.className = "bad";
      }
    }
    button.disabled = false;
    if (chosen.length === 1 && done.length === 1)
      window.location.assign(`${form.dataset.prefix}/analyses/${encodeURIComponent(done[0].id)}`);
  });
})();
