import { z } from "zod";
import type { Context } from "hono";
import { MissingDependencyError } from "@skillport/core";
import { RegistryError } from "../errors.js";
import type { Actor, VersionView } from "../types.js";
import { route, type RouteInput, type RouteModule } from "../http/route.js";
import { CLAWHUB_PREFIX } from "../http/clawhub.js";
import { SCRIPT, STYLESHEET } from "./assets.js";
import { html, trusted, type Html } from "./html.js";
import { renderMarkdown } from "./markdown.js";
import { mcpAddLine } from "../mcp.js";
import { checkCsrf, csrfToken, sessionActor, signIn, signOut } from "./session.js";

/** No inline script or style anywhere; forms post only here; never framed. */
export const WEB_CSP =
  "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Bytes of a text file the file view shows; larger files link to the raw bytes. */
const MAX_FILE_VIEW_BYTES = 512 * 1024;

const SkillParams = z.object({ name: z.string().max(64) });
const VersionQuery = z.object({ version: z.string().max(64).optional() });

interface PageInput {
  c: Context;
  actor: Actor | undefined;
  origin: string;
  csrf: () => string;
}

/** Pages a signed-out visitor reaches on a registry whose reads need a token. */
const OPEN_PATHS = new Set(["/ui/signin", "/ui/assets/app.css", "/ui/assets/app.js"]);

type Handler<P, Q> = (input: RouteInput<P, Q, unknown> & PageInput) => Promise<Response> | Response;

/** A page handler: the session's actor, the CSRF value on demand, errors as an HTML page (never JSON, never a stack). */
function page<P, Q>(handler: Handler<P, Q>) {
  return async (input: RouteInput<P, Q, unknown>): Promise<Response> => {
    const { c, store, origin } = input;
    let actor = input.actor;
    let token: string | undefined;
    try {
      actor ??= await sessionActor(c, store, origin);
      if (input.readAccess === "token" && !actor && !OPEN_PATHS.has(new URL(c.req.url).pathname)) {
        return respond(
          c,
          layout(
            "Sign in",
            actor,
            html`<p class="notice" role="alert">This registry needs a token to read.</p>
              ${signInForm(csrfToken(c, origin))}`,
          ),
          401,
        );
      }
      return await handler({ ...input, actor, csrf: () => (token ??= csrfToken(c, origin)) });
    } catch (error) {
      const status = error instanceof RegistryError ? error.status : 500;
      const message = error instanceof RegistryError ? error.message : "internal error";
      return respond(
        c,
        layout(
          "Error",
          actor,
          html`<h1>Something went wrong</h1>
            <p class="notice error" role="alert">${message}</p>
            <p><a href="/">Back to all skills</a></p>`,
          actor ? (token ??= csrfToken(c, origin)) : undefined,
        ),
        status,
      );
    }
  };
}

function respond(c: Context, body: Html, status = 200): Response {
  c.header("content-security-policy", WEB_CSP);
  c.header("x-frame-options", "DENY");
  c.header("cache-control", "no-store");
  return c.html(`<!doctype html>${body.value}`, status as 200);
}

function layout(title: string, actor: Actor | undefined, content: Html, csrf?: string): Html {
  const account = actor
    ? html`<a href="/ui/publish">Publish</a
        ><a href="/ui/tokens">Tokens</a>${actor.scopes.includes("admin") ? html`<a href="/ui/admin/held">Held</a>` : ""}
        <form method="post" action="/ui/signout">
          <input type="hidden" name="csrf" value="${csrf ?? ""}" /><button class="link" type="submit">
            Sign out ${actor.user}
          </button>
        </form>`
    : html`<a href="/ui/signin">Sign in</a>`;
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width,initial-scale=1" />
      <title>${title} · Skillport registry</title>
      <link rel="stylesheet" href="/ui/assets/app.css" />
      <script type="module" src="/ui/assets/app.js"></script>
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <a class="brand" href="/">Skillport registry</a>
        <nav aria-label="Account">${account}</nav>
      </header>
      <main id="main">${content}</main>
    </body>
  </html>`;
}

const skillUrl = (skill: string) => `/ui/skills/${skill}`;
const verdict = (v: string) => html`<span class="verdict v-${v}">${v}</span>`;
const date = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;

async function form(c: Context): Promise<Record<string, string | File>> {
  const parsed = await c.req.parseBody();
  const out: Record<string, string | File> = {};
  for (const [k, v] of Object.entries(parsed)) if (typeof v === "string" || v instanceof File) out[k] = v;
  return out;
}
const text = (v: string | File | undefined): string => (typeof v === "string" ? v : "");

export const webModule: RouteModule = {
  name: "web",
  routes: [
    route({
      method: "get",
      path: "/ui/assets/app.css",
      summary: "The web UI's stylesheet",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "CSS", contentType: "text/css" } },
      handler: () =>
        new Response(STYLESHEET, {
          headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" },
        }),
    }),
    route({
      method: "get",
      path: "/ui/assets/app.js",
      summary: "The web UI's script (copy buttons)",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "JavaScript", contentType: "text/javascript" } },
      handler: () =>
        new Response(SCRIPT, {
          headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
        }),
    }),
    route({
      method: "get",
      path: "/",
      summary: "Browse and search",
      tag: "web",
      document: false,
      sessionAuth: true,
      query: z.object({
        q: z.string().max(500).optional(),
        offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
      }),
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page<unknown, { q?: string; offset?: number }>(async ({ c, store, query, actor, csrf }) => {
        const limit = 50;
        const offset = query.offset ?? 0;
        const q = query.q?.trim() ?? "";
        const { total, skills } = await store.listSkills({ q: q || undefined, limit, offset });
        const rows = skills.map(
          (s) =>
            html`<tr>
              <td><a href="${skillUrl(s.skill)}">${s.skill}</a></td>
              <td>${s.description}</td>
              <td>${s.version}</td>
              <td>${verdict(s.audit.verdict)}</td>
              <td>${date(s.updatedAt)}</td>
            </tr>`,
        );
        const next =
          offset + limit < total
            ? html`<a href="/?${new URLSearchParams({ ...(q && { q }), offset: String(offset + limit) }).toString()}"
                >Next page</a
              >`
            : "";
        const content = html`<h1>${q ? `Skills matching “${q}”` : "All skills"}</h1>
          <form class="search" role="search" method="get" action="/">
            <label for="q" class="skip">Search skills</label
            ><input
              id="q"
              type="search"
              name="q"
              value="${q}"
              placeholder="Search skills"
              aria-label="Search skills"
            /><button type="submit">Search</button>
          </form>
          <p class="muted">${total} skill${total === 1 ? "" : "s"}</p>
          ${
            skills.length
              ? html`<table>
                  <thead>
                    <tr>
                      <th scope="col">Skill</th>
                      <th scope="col">Description</th>
                      <th scope="col">Version</th>
                      <th scope="col">Audit</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows}
                  </tbody>
                </table>`
              : html`<p>No skills${q ? " match" : " yet"}.</p>`
          }
          ${next}`;
        return respond(c, layout(q ? `Search: ${q}` : "Skills", actor, content, actor ? csrf() : undefined));
      }),
    }),
    route({
      method: "get",
      path: "/ui/skills/{name}",
      summary: "A skill's page",
      tag: "web",
      document: false,
      sessionAuth: true,
      params: SkillParams,
      query: VersionQuery,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page<{ name: string }, { version?: string }>(
        async ({ c, store, namespace, params, query, actor, origin, csrf, mounted, readAccess }) => {
          const skill = await store.getSkill(namespace, params.name, actor);
          const v = await store.getVersion(namespace, params.name, query.version ?? skill.version, actor);
          const readme = await store
            .readFile(namespace, params.name, v.version, "SKILL.md", actor)
            .catch(() => undefined);
          const body = readme
            ? new TextDecoder().decode(readme.bytes).replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/, "")
            : "";
          const rendered = await renderMarkdown(body, { fileBase: `${skillUrl(v.skill)}/files` }).catch(
            (error: unknown) => {
              // Without the optional renderer the text is shown escaped, never as HTML.
              if (!(error instanceof MissingDependencyError)) throw error;
              return {
                html: html`<p class="notice">${error.message}</p>
                  <pre>${body}</pre>`.value,
                truncated: false,
              };
            },
          );
          const content = html`<h1>${v.skill} <span class="muted">${v.version}</span></h1>
            <p>${v.description}</p>
            <div class="cols">
              <div>
                <section aria-labelledby="readme-h">
                  <h2 id="readme-h">SKILL.md</h2>
                  ${rendered.truncated ? html`<p class="notice">SKILL.md is large: only its beginning is shown. <a href="${fileUrl(v, "SKILL.md")}">View the whole file</a>.</p>` : ""}
                  <div class="readme">${trusted(rendered.html)}</div>
                </section>
                <section aria-labelledby="files-h">
                  <h2 id="files-h">Files</h2>
                  ${filesTable(v)}
                </section>
              </div>
              <div>
                <section aria-labelledby="install-h">
                  <h2 id="install-h">Install</h2>
                  ${installLines(origin, v, mounted.has("mcp") ? readAccess : undefined)}
                </section>
                <section aria-labelledby="audit-h">
                  <h2 id="audit-h">Audit</h2>
                  ${auditBlock(v)}
                </section>
                <section aria-labelledby="fm-h">
                  <h2 id="fm-h">Frontmatter</h2>
                  <table>
                    <tbody>
                      ${Object.entries(v.frontmatter).map(
                        ([k, val]) =>
                          html`<tr>
                            <th scope="row">${k}</th>
                            <td>${typeof val === "string" ? val : JSON.stringify(val)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </section>
                <section aria-labelledby="versions-h">
                  <h2 id="versions-h">Versions</h2>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Version</th>
                        <th scope="col">Published</th>
                        <th scope="col">Changes</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${skill.versions.map(
                        (x) =>
                          html`<tr>
                            <td>
                              <a
                                href="${skillUrl(v.skill)}?version=${encodeURIComponent(x.version)}"
                                ${x.version === v.version ? html` aria-current="page"` : ""}
                                >${x.version}</a
                              >${x.yanked ? " (yanked)" : ""}${x.hold ? ` (${x.hold})` : ""}
                            </td>
                            <td>${date(x.publishedAt)}</td>
                            <td>${x.changelog || html`<span class="muted">—</span>`}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                  <p class="muted">
                    Tags:
                    ${
                      Object.entries(skill.tags)
                        .map(([t, ver]) => `${t} → ${ver}`)
                        .join(", ") || "none"
                    }
                  </p>
                </section>
              </div>
            </div>`;
          return respond(c, layout(v.skill, actor, content, actor ? csrf() : undefined));
        },
      ),
    }),
    route({
      method: "get",
      path: "/ui/skills/{name}/files/{path}",
      summary: "One file of a version",
      tag: "web",
      document: false,
      sessionAuth: true,
      params: SkillParams.extend({ path: z.string().max(4096) }),
      query: VersionQuery,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page<{ name: string; path: string }, { version?: string }>(
        async ({ c, store, namespace, params, query, actor, csrf }) => {
          const version = query.version ?? (await store.getSkill(namespace, params.name, actor)).version;
          const f = await store.readFile(namespace, params.name, version, params.path, actor);
          const skill = namespace ? `@${namespace}/${params.name}` : params.name;
          const raw = `/api/v1/skills/${skill}/versions/${encodeURIComponent(f.version)}/files/${params.path.split("/").map(encodeURIComponent).join("/")}`;
          let shown: Html;
          if (f.bytes.includes(0)) shown = html`<p>A binary file. <a href="${raw}">Download it</a>.</p>`;
          else {
            const cut = f.bytes.length > MAX_FILE_VIEW_BYTES;
            const textContent = new TextDecoder().decode(cut ? f.bytes.subarray(0, MAX_FILE_VIEW_BYTES) : f.bytes);
            shown = html`${cut ? html`<p class="notice">Only the first ${MAX_FILE_VIEW_BYTES} bytes are shown. <a href="${raw}">The whole file</a>.</p>` : ""}
              <pre><code>${textContent}</code></pre>`;
          }
          const content = html`<p>
              <a href="${skillUrl(skill)}?version=${encodeURIComponent(f.version)}">${skill} ${f.version}</a>
            </p>
            <h1>${params.path}</h1>
            <p class="muted">
              ${f.entry.size} bytes · mode ${f.entry.mode.toString(8)} ·
              <span class="digest">sha256:${f.entry.sha256}</span> · <a href="${raw}">raw</a>
            </p>
            ${shown}`;
          return respond(c, layout(`${params.path} · ${skill}`, actor, content, actor ? csrf() : undefined));
        },
      ),
    }),
    route({
      method: "get",
      path: "/ui/signin",
      summary: "Sign in with a token",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page(({ c, actor, csrf }) => respond(c, layout("Sign in", actor, signInForm(csrf()), csrf()))),
    }),
    route({
      method: "post",
      path: "/ui/signin",
      summary: "Sign in with a token",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 303: { description: "to the publish page" } },
      handler: page(async ({ c, store, origin, csrf }) => {
        const f = await form(c);
        checkCsrf(c, f.csrf, origin);
        const token = text(f.token).trim();
        const who = token.length > 0 && token.length <= 200 ? await store.authenticate(token) : undefined;
        if (!who)
          return respond(
            c,
            layout(
              "Sign in",
              undefined,
              html`<p class="notice error" role="alert">That token is not valid (unknown, revoked or malformed).</p>
                ${signInForm(csrf())}`,
            ),
            401,
          );
        signIn(c, token, origin);
        return c.redirect("/ui/publish", 303);
      }),
    }),
    route({
      method: "post",
      path: "/ui/signout",
      summary: "Sign out",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 303: { description: "home" } },
      handler: page(async ({ c, origin }) => {
        checkCsrf(c, (await form(c)).csrf, origin);
        signOut(c, origin);
        return c.redirect("/", 303);
      }),
    }),
    route({
      method: "get",
      path: "/ui/publish",
      summary: "The publish form",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page(({ c, actor, csrf }) =>
        respond(c, layout("Publish", actor, publishForm(actor, csrf()), csrf()), actor ? 200 : 401),
      ),
    }),
    route({
      method: "post",
      path: "/ui/publish",
      summary: "Publish from the form",
      tag: "web",
      document: false,
      sessionAuth: true,
      maxBodyBytes: (store) => store.limits.maxUploadBytes + 256 * 1024,
      responses: { 303: { description: "to the skill page" } },
      handler: page(async ({ c, store, actor, origin, csrf }) => {
        const f = await form(c);
        checkCsrf(c, f.csrf, origin);
        if (!actor) return respond(c, layout("Publish", actor, publishForm(actor, csrf())), 401);
        const file = f.archive;
        if (!(file instanceof File) || file.size === 0)
          throw new RegistryError("REGISTRY_BAD_REQUEST", "choose the package file (a zip, tar or .skill) to publish");
        const tags = text(f.tags)
          .split(",")
          .map((t) => t.trim())
          .filter((t) => t !== "");
        const result = await store.publish(
          new Uint8Array(await file.arrayBuffer()),
          {
            namespace: text(f.namespace).trim() || undefined,
            version: text(f.version).trim() || undefined,
            tags: tags.length ? tags : undefined,
            changelog: text(f.changelog) || undefined,
          },
          actor,
        );
        return c.redirect(
          `${skillUrl(result.version.skill)}?version=${encodeURIComponent(result.version.version)}`,
          303,
        );
      }),
    }),
    route({
      method: "get",
      path: "/ui/tokens",
      summary: "Create and revoke tokens",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page(({ c, actor, csrf }) =>
        respond(c, layout("Tokens", actor, tokensPage(actor, csrf()), csrf()), actor ? 200 : 401),
      ),
    }),
    route({
      method: "post",
      path: "/ui/tokens",
      summary: "Create or revoke a token",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page(async ({ c, store, actor, origin, csrf }) => {
        const f = await form(c);
        checkCsrf(c, f.csrf, origin);
        if (!actor) return respond(c, layout("Tokens", actor, tokensPage(actor, csrf())), 401);
        let notice: Html;
        if (text(f.revoke)) {
          await store.revokeToken(text(f.revoke).slice(0, 64), actor);
          notice = html`<p class="notice" role="status">Token ${text(f.revoke)} revoked.</p>`;
        } else {
          const scopes = (["read", "publish", "admin"] as const).filter((s) => text(f[`scope-${s}`]) === "on");
          if (scopes.length === 0) throw new RegistryError("REGISTRY_BAD_REQUEST", "choose at least one scope");
          const t = await store.createToken(
            { user: actor.user, scopes, label: text(f.label).slice(0, 200) || undefined },
            actor,
          );
          notice = html`<div class="notice" role="status">
            <p>New token <strong>${t.id}</strong> (${t.scopes.join(", ")}). It is shown only now:</p>
            <div class="install"><pre data-copy="the new token">${t.token}</pre></div>
          </div>`;
        }
        return respond(c, layout("Tokens", actor, html`${notice}${tokensPage(actor, csrf())}`, csrf()));
      }),
    }),
    route({
      method: "get",
      path: "/ui/admin/held",
      summary: "Held versions (admins)",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: page(async ({ c, store, actor, csrf }) => {
        const held = await store.held(actor);
        const token = csrf();
        const items = held.map(
          (h) =>
            html`<article>
              <h2>${h.skill} ${h.version} ${verdict(h.verdict)}</h2>
              <p class="muted">Published by ${h.publishedBy} on ${date(h.publishedAt)}</p>
              ${findingsList(h.findings)}
              <form class="stack" method="post" action="/ui/admin/held">
                <input type="hidden" name="csrf" value="${token}" /><input
                  type="hidden"
                  name="skill"
                  value="${h.skill}"
                /><input type="hidden" name="version" value="${h.version}" />
                <label for="reason-${h.skill}-${h.version}">Reason</label
                ><input type="text" id="reason-${h.skill}-${h.version}" name="reason" required maxlength="1000" />
                <p>
                  <button type="submit" name="decision" value="release">Release</button>
                  <button type="submit" name="decision" value="reject">Reject</button>
                </p>
              </form>
            </article>`,
        );
        return respond(
          c,
          layout(
            "Held versions",
            actor,
            html`<h1>Held versions</h1>
              ${items.length ? items : html`<p>Nothing is held.</p>`}`,
            token,
          ),
        );
      }),
    }),
    route({
      method: "post",
      path: "/ui/admin/held",
      summary: "Decide on a held version",
      tag: "web",
      document: false,
      sessionAuth: true,
      responses: { 303: { description: "back to the list" } },
      handler: page(async ({ c, store, actor, origin }) => {
        const f = await form(c);
        checkCsrf(c, f.csrf, origin);
        const decision = text(f.decision);
        if (decision !== "release" && decision !== "reject")
          throw new RegistryError("REGISTRY_BAD_REQUEST", "decision must be release or reject");
        const m = /^(?:@([a-z0-9-]+)\/)?([a-z0-9-]+)$/.exec(text(f.skill));
        if (!m) throw new RegistryError("REGISTRY_BAD_REQUEST", "not a skill name");
        await store.decide(
          m[1] ?? "",
          m[2] as string,
          text(f.version).slice(0, 64),
          decision,
          text(f.reason).slice(0, 1000),
          actor,
        );
        return c.redirect("/ui/admin/held", 303);
      }),
    }),
  ],
};

function fileUrl(v: VersionView, path: string): string {
  return `${skillUrl(v.skill)}/files/${path.split("/").map(encodeURIComponent).join("/")}?version=${encodeURIComponent(v.version)}`;
}

function filesTable(v: VersionView): Html {
  return html`<table>
      <thead>
        <tr>
          <th scope="col">Path</th>
          <th scope="col">Size</th>
          <th scope="col">sha256</th>
        </tr>
      </thead>
      <tbody>
        ${v.files.map(
          (f) =>
            html`<tr>
              <td><a href="${fileUrl(v, f.path)}">${f.path}</a></td>
              <td>${f.size}</td>
              <td class="digest">${f.sha256}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="muted">
      Package <span class="digest">${v.digest}</span>, ${v.size} bytes; content
      <span class="digest">${v.contentDigest}</span>
    </p>`;
}

/** The install lines; `mcp`: the registry serves /mcp (with its read access, which decides the header). */
function installLines(origin: string, v: VersionView, mcp: "public" | "token" | undefined): Html {
  const source = v.namespace ? `${origin}/@${v.namespace}` : origin;
  const lines: Array<[string, string]> = [
    ["Skillport", `skillport add ${source} --skill ${v.name}`],
    ["skills CLI", `npx skills add ${source} --skill ${v.name}`],
    [
      "ClawHub CLI",
      `clawhub --registry ${origin}${CLAWHUB_PREFIX} install ${v.namespace ? `@${v.namespace}/` : ""}${v.name}`,
    ],
  ];
  if (mcp !== undefined) lines.push(["MCP (Claude Code)", mcpAddLine(origin, mcp)]);
  return html`${lines.map(
    ([label, line]) =>
      html`<p class="muted">${label}</p>
        <div class="install"><pre data-copy="${label} install line">${line}</pre></div>`,
  )}`;
}

function findingsList(findings: VersionView["audit"]["findings"]): Html {
  if (findings.length === 0) return html`<p>No findings.</p>`;
  return html`<ul>
    ${findings.map((f) => html`<li><strong>${f.level}</strong> <code>${f.code}</code>: ${f.message} <span class="muted">(${f.file}:${f.line})</span>${f.evidence ? html`<br /><code>${f.evidence}</code>` : ""}${f.fix ? html`<br /><span class="muted">${f.fix}</span>` : ""}</li>`)}
  </ul>`;
}

function auditBlock(v: VersionView): Html {
  return html`<p>Verdict: ${verdict(v.audit.verdict)}${v.hold ? ` (${v.hold})` : ""}${v.yanked ? " · yanked" : ""}</p>
    ${findingsList(v.audit.findings)}`;
}

function signInForm(csrf: string): Html {
  return html`<h1>Sign in</h1>
    <p>Paste a registry token (<code>skp_…</code>). It is kept in an HttpOnly cookie for this site only.</p>
    <form class="stack" method="post" action="/ui/signin">
      <input type="hidden" name="csrf" value="${csrf}" /><label for="token">Token</label
      ><input type="password" id="token" name="token" required autocomplete="off" maxlength="200" />
      <p><button type="submit">Sign in</button></p>
    </form>`;
}

function publishForm(actor: Actor | undefined, csrf: string): Html {
  if (!actor)
    return html`<h1>Publish</h1>
      <p class="notice" role="alert">
        Publishing needs a token with the publish scope. <a href="/ui/signin">Sign in</a> first.
      </p>`;
  return html`<h1>Publish a skill</h1>
    <p class="muted">Signed in as ${actor.user} (${actor.scopes.join(", ")}).</p>
    <form class="stack" method="post" action="/ui/publish" enctype="multipart/form-data">
      <input type="hidden" name="csrf" value="${csrf}" /> <label for="archive">Package (zip, tar or .skill)</label
      ><input type="file" id="archive" name="archive" required accept=".zip,.skill,.tar,.tgz,.gz" />
      <label for="namespace">Namespace (optional, without @)</label
      ><input type="text" id="namespace" name="namespace" maxlength="64" />
      <label for="version">Version (optional)</label><input type="text" id="version" name="version" maxlength="64" />
      <label for="tags">Tags (comma-separated, default latest)</label
      ><input type="text" id="tags" name="tags" maxlength="1000" /> <label for="changelog">Changelog</label
      ><textarea id="changelog" name="changelog" rows="4" maxlength="100000"></textarea>
      <p><button type="submit">Publish</button></p>
    </form>`;
}

function tokensPage(actor: Actor | undefined, csrf: string): Html {
  if (!actor)
    return html`<h1>Tokens</h1>
      <p class="notice" role="alert"><a href="/ui/signin">Sign in</a> to manage tokens.</p>`;
  return html`<h1>Tokens</h1>
    <p class="muted">Signed in as ${actor.user}. New tokens get at most your own scopes.</p>
    <form class="stack" method="post" action="/ui/tokens">
      <input type="hidden" name="csrf" value="${csrf}" />
      <h2>New token</h2>
      <label for="label">Label</label><input type="text" id="label" name="label" maxlength="200" />
      <fieldset>
        <legend>Scopes</legend>
        ${actor.scopes.map((s) => html`<input type="checkbox" id="scope-${s}" name="scope-${s}" ${s === "read" ? html` checked` : ""} /> <label for="scope-${s}">${s}</label> `)}
      </fieldset>
      <p><button type="submit">Create token</button></p>
    </form>
    <form class="stack" method="post" action="/ui/tokens">
      <input type="hidden" name="csrf" value="${csrf}" />
      <h2>Revoke a token</h2>
      <label for="revoke">Token id</label><input type="text" id="revoke" name="revoke" required maxlength="64" />
      <p><button type="submit">Revoke</button></p>
    </form>`;
}
