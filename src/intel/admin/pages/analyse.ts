/**
 * Analyse: drop or choose files, optionally with a password, YARA rules and the files' TLP/PAP
 * (the default is the server's, RED/RED: a victim's file is private). The page's script sends
 * each file to `POST /analyses/upload` here, which is the API's upload (services/analyses.ts) for
 * the signed-in admin; a panel whose intel has no files service says so and how to set one.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../../../common/errors.ts";
import type { App } from "../../../common/http.ts";
import { installAnalysisUploads, receiveAnalysisUpload } from "../../api/analysis-upload.ts";
import { MARKINGS } from "../../model/markings.ts";
import type { Analyses, Viewer } from "../../services/analyses.ts";
import { type AdminDeps, sendPage, signedIn } from "../context.ts";
import { type Html, html } from "../html.ts";

/** The signed-in admin as the analyses service sees a user (the panel is for administrators). */
export function panelViewer(req: FastifyRequest): Viewer {
  const { user } = signedIn(req);
  return { id: user.id, username: user.username, is_admin: 1 };
}

/** The analyses service, or a 503 saying this server runs without it. */
export function analysesOf(deps: AdminDeps): Analyses {
  if (!deps.analyses)
    throw new HttpError(503, "analyses_unavailable", "This panel runs without files analyses.");
  return deps.analyses;
}

/** Said on the page when intel has no files service: what is missing, and how to set it. */
export function filesHint(deps: AdminDeps): Html | "" {
  if (deps.services.config.filesUrl !== null) return "";
  return html`<p class="flash error" id="files-hint" role="note"><strong>No files service is configured</strong> (FILES_URL=none), so files cannot be analysed. Set <code>FILES_URL</code> in intel's environment to the files service's URL (for example <code>http://127.0.0.1:8000</code>, started by <code>./loupe up</code> or <code>./loupe files serve</code>) and restart intel; docs/configuration.md lists it.</p>`;
}

function markingSelect(name: "tlp" | "pap", current: string): Html {
  return html`<select name="${name}">${MARKINGS.map((m) => html`<option ${m === current ? html`selected` : ""}>${m}</option>`)}</select>`;
}

const megabytes = (bytes: number) =>
  bytes >= 1_000_000 ? `${Math.floor(bytes / 1_000_000)} MB` : `${bytes.toLocaleString("en")} bytes`;

function analyseForm(deps: AdminDeps): Html {
  const { config } = deps.services;
  const off = config.filesUrl === null;
  return html`<form id="analyse" class="card analyse" data-prefix="${deps.prefix}" data-max-bytes="${config.analysisMaxBytes}">
  <div id="drop" class="drop">
    <p><strong>Drop files here</strong>, or <label class="choose">choose them: <input type="file" name="file" multiple ${off ? html`disabled` : ""}></label></p>
    <p class="muted small">Up to ${megabytes(config.analysisMaxBytes)} each (INTEL_ANALYSIS_MAX_BYTES). Each file is analysed with everything inside it.</p>
    <ul id="chosen" class="findings"></ul>
  </div>
  <div class="row">
    <label class="grow">Password <input name="password" autocomplete="off" placeholder="for encrypted archives, besides the default list"></label>
    <label>TLP ${markingSelect("tlp", config.analysisDefaultTlp)}</label>
    <label>PAP ${markingSelect("pap", config.analysisDefaultPap)}</label>
  </div>
  <label>YARA rules <textarea name="rules" rows="4" spellcheck="false" placeholder="rule example { strings: $a = &quot;evil&quot; condition: $a }"></textarea></label>
  <p class="muted small">The marking says who may learn of this file's indicators when they are enriched: RED keeps them away from every public vendor. The default (${config.analysisDefaultTlp} / ${config.analysisDefaultPap}) is INTEL_ANALYSIS_DEFAULT_TLP / _PAP.</p>
  <button type="submit" ${off ? html`disabled` : ""}>Analyse</button>
</form>
<noscript><p class="flash error">This page needs JavaScript to send files; scripts can use POST /api/analyses/.</p></noscript>
<section id="uploads" hidden><h2>Sent</h2><ul id="upload-list" class="findings"></ul></section>`;
}

export function registerAnalyse(admin: App, deps: AdminDeps): void {
  admin.get("/analyse", async (req, reply) =>
    sendPage(req, reply, deps, {
      title: "Analyse a file",
      active: "analyse",
      body: html`${filesHint(deps)}${analyseForm(deps)}`,
      scripts: ["analyse.js"],
    }),
  );
  // Multipart only here: the rest of the panel reads forms.
  admin.register(async (scope) => {
    const uploads = scope as unknown as App;
    const limits = {
      maxFileBytes: deps.services.config.analysisMaxBytes,
      maxFieldBytes: deps.services.config.analysisMaxFieldBytes,
    };
    await installAnalysisUploads(uploads, limits);
    uploads.post(
      "/analyses/upload",
      { config: { adminJson: true }, schema: { hide: true } },
      async (req: FastifyRequest, reply: FastifyReply) => {
        const analyses = analysesOf(deps);
        await analyses.checkFilesService();
        const target = await analyses.newUpload();
        const upload = await receiveAnalysisUpload(req, target.path, limits);
        const created = await analyses.create(panelViewer(req), { ...upload, ...target });
        reply.header("cache-control", "no-store");
        if (created.status === 200)
          return reply.code(200).type("application/json; charset=utf-8").send(created.json);
        return reply.code(202).send(created.analysis);
      },
    );
  });
}
