/**
 * Investigate: Colander's form (super type, type, value, force). The page's script follows the
 * API's 201→200 protocol through the session-authenticated JSON routes below, shows progress,
 * then draws the Mermaid graph and the tables of the result. Each vendor's page and verdict rule
 * come from its connector, embedded in the page as JSON for static/verdict.js.
 */
import { Type } from "typebox";
import { notFound } from "../../../common/errors.ts";
import { sendBytes } from "../../../common/gzip.ts";
import type { App } from "../../../common/http.ts";
import { parseSubject } from "../../api/subject.ts";
import { askAbout, type RequestAnswer, VendorsFailed } from "../../services/requests.ts";
import { lookableTypes } from "../../services/types.ts";
import { type AdminDeps, sendPage } from "../context.ts";
import { vendorHint } from "../hints.ts";
import { html, jsonScript } from "../html.ts";
import { panelVendors } from "../vendors.ts";

const SubjectQuery = Type.Object({
  super_type: Type.String({ minLength: 1, maxLength: 64 }),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  value: Type.String({ minLength: 1, maxLength: 2048 }),
});

const AskBody = Type.Object(
  {
    super_type: Type.String({ minLength: 1, maxLength: 64 }),
    type: Type.String({ minLength: 1, maxLength: 64 }),
    value: Type.String({ minLength: 1, maxLength: 2048 }),
    force: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export function registerInvestigate(admin: App, deps: AdminDeps): void {
  registerInvestigatePage(admin, deps);
  registerInvestigateCalls(admin, deps);
}

/** The form, the progress line and the empty result sections the page's script fills. */
function registerInvestigatePage(admin: App, deps: AdminDeps): void {
  const { connectors, config } = deps.services;

  admin.get<{ Querystring: Partial<Record<"super_type" | "type" | "value", string>> }>(
    "/investigate",
    async (req, reply) => {
      // Only what at least one enabled connector can look up: anything else would come back empty.
      const taxonomy = lookableTypes(connectors).map((st) => ({
        short_name: st.shortName,
        name: st.name,
        types: st.types.map((t) => ({ short_name: t.shortName, name: t.name })),
      }));
      const q = req.query;
      const body = html`${await vendorHint(deps)}
<form id="investigate" class="card investigate" data-prefix="${deps.prefix}" data-retry-ms="${config.retryAfterSeconds * 1000}">
  <label class="grow">Value <input name="value" required maxlength="2048" value="${q.value ?? ""}" placeholder="a hash, domain, IP address, URL…" autocomplete="off"></label>
  <label>Super type <select name="super_type" data-initial="${q.super_type ?? "OBSERVABLE"}"></select></label>
  <label>Type <select name="type" data-initial="${q.type ?? ""}"></select> <small id="detected" class="muted" aria-live="polite"></small></label>
  <label class="check"><input type="checkbox" name="force"> Force a refresh</label>
  <button type="submit">Investigate</button>
</form>
${jsonScript("taxonomy", taxonomy)}
${jsonScript("vendors", panelVendors(connectors))}
<section id="progress" class="card" hidden aria-live="polite">
  <div class="progress-line"><span class="spinner" aria-hidden="true"></span><strong id="progress-status"></strong> <span id="progress-elapsed" class="muted"></span></div>
  <div class="bar"><div id="progress-bar"></div></div>
  <p id="progress-detail" class="muted"></p>
</section>
<p id="problem" class="flash error" role="alert" hidden></p>
<section id="result" hidden>
  <p class="result-head"><span id="result-root"></span> <a id="raw-link" href="#" target="_blank" rel="noopener">Raw JSON</a></p>
  <p id="nobody-asked" class="flash error" role="status" hidden></p>
  <section id="verdict" class="card verdict" aria-labelledby="verdict-title">
    <h2 id="verdict-title">Verdict: <span id="verdict-assessment" class="assessment"></span></h2>
    <dl class="facts">
      <dt>Detections</dt><dd id="verdict-detections"></dd>
      <dt>First seen</dt><dd id="verdict-first"></dd>
      <dt>Last seen</dt><dd id="verdict-last"></dd>
      <dt>Threats</dt><dd id="verdict-threats"></dd>
      <dt>Facts</dt><dd id="verdict-facts"></dd>
      <dt>Tags</dt><dd id="verdict-tags"></dd>
    </dl>
    <ul id="verdict-vendors" class="vendors"></ul>
    <p class="muted small">The assessment is the worst of the vendors' own verdicts; <em>unknown</em> when none gave one.</p>
  </section>
  <h2>Graph</h2>
  <div id="graph" class="card graph"></div>
  <h2>Entities <span id="entities-count" class="count"></span></h2>
  <table id="entities"><thead><tr><th>Name</th><th>Type</th><th>Attributes</th><th>Updated</th></tr></thead><tbody></tbody></table>
  <h2>Relations <span id="relations-count" class="count"></span></h2>
  <table id="relations"><thead><tr><th>From</th><th>Relation</th><th>To</th></tr></thead><tbody></tbody></table>
  <h2>Events <span id="events-count" class="count"></span></h2>
  <table id="events"><thead><tr><th>Name</th><th>Type</th><th>Entity</th><th>First seen</th><th>Last seen</th><th>Count</th></tr></thead><tbody></tbody></table>
  <h2>Sources</h2>
  <table id="sources"><thead><tr><th>Vendor</th><th>Outcome</th><th>Error</th><th>Fetched</th></tr></thead><tbody></tbody></table>
</section>`;
      return sendPage(req, reply, deps, {
        title: "Investigate",
        active: "investigate",
        body,
        scripts: [
          "mermaid.min.js",
          "detect.js",
          "verdict.js",
          "graph.js",
          "graph-groups.js",
          "investigate.js",
        ],
      });
    },
  );
}

/** The page's JSON calls: Colander's protocol for a person (200, 201, 502), and the raw stored document. */
function registerInvestigateCalls(admin: App, deps: AdminDeps): void {
  const { requests } = deps.services;

  // Colander's call, for a person: the answer's HTTP status is the protocol's (200, 201, 502).
  admin.post(
    "/investigate/ask",
    { config: { adminJson: true }, schema: { hide: true, body: AskBody } },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      let answer: RequestAnswer;
      try {
        answer = await askAbout(deps.services, parseSubject(req.body), {
          force: req.body.force ?? false,
          depth: 1,
        });
      } catch (err) {
        if (!(err instanceof VendorsFailed)) throw err;
        return reply.code(502).send({ detail: err.message, code: err.code, ...err.extra });
      }
      if (answer.status === 200)
        return sendBytes(req, reply.code(200).type("application/json; charset=utf-8"), answer.json);
      const { request } = answer;
      return reply.code(201).header("retry-after", String(answer.retryAfterSeconds)).send({
        id: request.id,
        status: request.status,
        created_at: request.created_at,
        asking: answer.asking,
      });
    },
  );

  admin.get<{ Querystring: { super_type: string; type: string; value: string } }>(
    "/investigate/raw",
    { config: { adminJson: true }, schema: { hide: true, querystring: SubjectQuery } },
    async (req, reply) => {
      const doc = await requests.document(parseSubject(req.query), 1);
      if (!doc) throw notFound("Nothing stored for this subject yet: investigate it first.");
      const json = reply.header("cache-control", "no-store").type("application/json; charset=utf-8");
      return sendBytes(req, json, doc);
    },
  );
}
