// An executable node's structure on the report page (`extra.executable`, docs/extraction.md,
// "Executables"): the facts an analyst reads first (format, architecture, compile time, entry
// point, signature, packer hints), then sections, imports and exports folded. `el` is report.js's
// element builder, so every name from the file stays text.
window.loupeExecutable = (() => {
  const hex = (n) => (typeof n === "number" ? `0x${n.toString(16)}` : null);

  function signature(sig) {
    if (!sig) return null;
    if (!sig.present) return "not signed";
    const who = (sig.certificates ?? []).map((c) => c.subject).filter(Boolean)[0];
    const valid = sig.valid === true ? "valid" : sig.valid === false ? "NOT valid" : "not checked";
    return `signed (${valid})${who ? `, by ${who}` : ""}`;
  }

  function headline(x) {
    const d = x.details ?? {};
    return [
      ["Format", x.format],
      ["Architecture", x.architecture],
      ["Compiled", x.compile_time],
      ["Entry point", hex(x.entry_point)],
      ["Subsystem", d.subsystem],
      ["Imphash", d.imphash],
      ["Signature", signature(x.signatures)],
      ["Packer hints", (x.packer_hints ?? []).join(", ")],
      ["Overlay", x.overlay ? `${x.overlay.size} bytes at ${hex(x.overlay.offset)}` : null],
      ["Cut", (x.truncated ?? []).join(", ")],
    ].filter(([, v]) => v !== null && v !== undefined && v !== "");
  }

  function sectionsTable(sections, el) {
    if (!sections?.length) return null;
    const table = el(
      "table",
      { class: "sections" },
      el("thead", {}, el("tr", {}, el("th", {}, "Section"), el("th", {}, "Size"), el("th", {}, "Entropy"))),
      el(
        "tbody",
        {},
        sections.map((s) =>
          el(
            "tr",
            {},
            el("td", { class: "subject" }, s.name),
            el("td", {}, s.size ?? ""),
            el("td", {}, typeof s.entropy === "number" ? s.entropy.toFixed(2) : ""),
          ),
        ),
      ),
    );
    window.loupeLabelCells?.(table);
    return el("details", {}, el("summary", {}, `Sections (${sections.length})`), table);
  }

  function importsList(imports, exports, el) {
    const out = [];
    if (imports?.length)
      out.push(
        el(
          "details",
          {},
          el("summary", {}, `Imports (${imports.length} libraries)`),
          el(
            "ul",
            { class: "findings" },
            imports.map((i) =>
              el("li", {}, el("strong", {}, i.library ?? "?"), ": ", (i.functions ?? []).join(", ")),
            ),
          ),
        ),
      );
    if (exports?.length)
      out.push(
        el(
          "details",
          {},
          el("summary", {}, `Exports (${exports.length})`),
          el("p", { class: "subject" }, exports.join(", ")),
        ),
      );
    return out;
  }

  return (x, el) => {
    if (x.error)
      return el("p", { class: "bad" }, `Executable (${x.format}) not read: ${x.error}, ${x.detail ?? ""}`);
    return el(
      "section",
      { class: "executable" },
      el("h4", {}, "Executable"),
      el(
        "dl",
        { class: "facts" },
        headline(x).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]),
      ),
      sectionsTable(x.sections, el),
      importsList(x.imports, x.exports, el),
    );
  };
})();
