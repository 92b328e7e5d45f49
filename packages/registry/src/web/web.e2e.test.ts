// The web UI in a real browser (Debian's chromium via playwright-core): search → skill → file; publish with and
// without a token; a hostile SKILL.md renders inert; screenshots of the main pages for docs/images.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRegistry, type RunningRegistry } from "../index.js";
import { MALICIOUS_BODY, skillZip, testRegistryDb, type TestRegistryDb } from "../test-support/fixtures.js";

const CHROMIUM = "/usr/bin/chromium";
const IMAGES = fileURLToPath(new URL("../../../../docs/images/", import.meta.url));
const SHOOT = process.env.SKILLPORT_SCREENSHOTS === "1";

const HOSTILE = `# Totally normal

<script>alert("script")</script>

<img src=x onerror="alert('onerror')">

[click me](javascript:alert('js-link')) and [data](data:text/html,<script>alert(1)</script>)

<a href="javascript:alert('raw')" onclick="alert('click')">raw link</a>

<style>body{display:none}</style>

${Array.from({ length: 9000 }, (_, i) => `Padding line ${i} ${randomBytes(12).toString("hex")}.`).join("\n\n")}`;

describe.skipIf(!existsSync(CHROMIUM))("web UI in chromium", () => {
  let db: TestRegistryDb;
  let registry: RunningRegistry;
  let browser: Browser;
  let userDir: string;
  let publisher: string;
  let admin: string;
  const dialogs: string[] = [];

  beforeAll(async () => {
    db = await testRegistryDb("sqlite");
    registry = await serveRegistry({ database: db.url, blobs: db.blobs });
    const store = registry.store;
    publisher = (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    admin = (await store.createToken({ user: "root", scopes: ["read", "publish", "admin"] })).token;
    const alice = (await store.authenticate(publisher))!;
    await store.publish(
      await skillZip("pdf-tools", {
        description: "Fill, merge and split PDF forms.",
        body: "# PDF tools\n\nSee [the reference](references/forms.md).\n\n```sh\npython scripts/fill.py in.pdf\n```\n",
        files: {
          "references/forms.md": "# Forms\n\nField names <b>matter</b>.\n",
          "scripts/fill.py": "print('fill')\n",
        },
      }),
      { changelog: "First release." },
      alice,
    );
    await store.publish(
      await skillZip("pdf-tools", {
        description: "Fill, merge and split PDF forms.",
        body: "# PDF tools\n\nNow with merging. See [the reference](references/forms.md).\n",
        files: { "references/forms.md": "# Forms\n\nField names matter.\n", "scripts/fill.py": "print('fill v2')\n" },
      }),
      { changelog: "Adds merging." },
      alice,
    );
    await store.publish(await skillZip("csv-clean", { description: "Clean messy CSV files." }), {}, alice);
    await store.publish(await skillZip("evil-readme", { description: "A hostile readme.", body: HOSTILE }), {}, alice);
    await store.publish(
      await skillZip("setup-helper", { description: "Looks helpful.", body: MALICIOUS_BODY }),
      {},
      alice,
    );
    userDir = mkdtempSync(path.join(os.tmpdir(), "skillport-chromium-"));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      // Playwright gives every launch a fresh temporary profile (it refuses --user-data-dir with launch()).
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await registry?.close();
    await db?.drop();
    if (userDir) rmSync(userDir, { recursive: true, force: true });
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return { context, page };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (SHOOT) await page.screenshot({ path: path.join(IMAGES, `registry-${name}.png`), fullPage: false });
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(`${registry.url}/ui/signin`);
    await page.getByLabel("Token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/ui\/publish$/);
  }

  it("search → open a skill → view a file, with a CSP and no inline script", async () => {
    const { context, page } = await newPage();
    const home = await page.goto(registry.url);
    expect(home?.headers()["content-security-policy"]).toContain("default-src 'self'");
    expect(await page.locator("tbody tr").count()).toBe(3); // setup-helper is held
    await shoot(page, "browse");
    await page.getByLabel("Search skills").fill("pdf forms");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\?q=/);
    expect(await page.locator("h1").textContent()).toContain("pdf forms");
    await page.getByRole("link", { name: "pdf-tools" }).click();
    await page.waitForURL(/\/ui\/skills\/pdf-tools$/);
    expect(await page.locator("h1").textContent()).toContain("1.0.1");
    expect(await page.locator(".readme").textContent()).toContain("Now with merging");
    expect(await page.locator("section", { hasText: "Versions" }).textContent()).toContain("Adds merging.");
    expect(await page.locator("pre[data-copy]").first().textContent()).toBe(
      `skillport add ${registry.url} --skill pdf-tools`,
    );
    // The MCP config line for this registry's /mcp (serveRegistry mounts it), with its own copy button.
    expect(await page.locator('pre[data-copy="MCP (Claude Code) install line"]').textContent()).toBe(
      `claude mcp add --transport http skillport-registry ${registry.url}/mcp`,
    );
    expect(await page.getByRole("button", { name: /Copy/ }).count()).toBe(4); // Skillport, skills, clawhub, MCP
    expect(await page.locator("td.digest").count()).toBe(3);
    await shoot(page, "skill");
    await page.locator(".readme").getByRole("link", { name: "the reference" }).click();
    await page.waitForURL(/\/files\/references\/forms\.md/);
    expect(await page.locator("pre code").textContent()).toContain("Field names matter.");
    await page.goto(`${registry.url}/ui/skills/pdf-tools?version=1.0.0`);
    await page.getByRole("link", { name: "scripts/fill.py" }).click();
    expect(await page.locator("pre code").textContent()).toBe("print('fill')\n");
    await shoot(page, "file");
    await context.close();
  }, 60_000);

  it("reads without JavaScript", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${registry.url}/?q=csv`);
    await page.getByRole("link", { name: "csv-clean" }).click();
    expect(await page.locator("pre[data-copy]").first().textContent()).toContain("--skill csv-clean");
    expect(await page.getByRole("button", { name: /Copy/ }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it("renders a hostile SKILL.md inert and cut to size", async () => {
    const { context, page } = await newPage();
    dialogs.length = 0;
    await page.goto(`${registry.url}/ui/skills/evil-readme`);
    const readme = page.locator(".readme");
    expect(await readme.textContent()).toContain("Totally normal");
    expect(await page.locator(".readme script, .readme style, .readme iframe").count()).toBe(0);
    expect(await page.locator("script:not([src='/ui/assets/app.js'])").count()).toBe(0);
    const onAttrs = await page
      .locator("*")
      .evaluateAll((els) =>
        els.flatMap((el) =>
          [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${el.tagName}.${a.name}`),
        ),
      );
    expect(onAttrs).toEqual([]);
    const hrefs = await readme.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    for (const href of hrefs) expect(href).not.toMatch(/^\s*(javascript|data|vbscript):/i);
    expect(await page.locator(".notice", { hasText: "only its beginning" }).count()).toBe(1);
    for (const link of await readme.locator("a").all()) await link.click({ timeout: 2000 }).catch(() => undefined);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    expect(await page.locator("body").isVisible()).toBe(true);
    await context.close();
  }, 60_000);

  it("publishes only with a token", async () => {
    const { context, page } = await newPage();
    const denied = await page.goto(`${registry.url}/ui/publish`);
    expect(denied?.status()).toBe(401);
    expect(await page.locator("input[type=file]").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Sign in" }).count()).toBeGreaterThan(0);
    // A forged post without the CSRF field or a session is refused.
    const forged = await page.request.post(`${registry.url}/ui/publish`, {
      multipart: {
        archive: { name: "s.zip", mimeType: "application/zip", buffer: Buffer.from(await skillZip("forged")) },
      },
    });
    expect(forged.status()).toBe(403);
    expect((await registry.store.listSkills({ q: "forged" })).skills.map((s) => s.name)).not.toContain("forged");

    await signIn(page, publisher);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "skillport_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
    const archive = path.join(userDir, "new-skill.zip");
    writeFileSync(archive, await skillZip("fresh-skill", { description: "Published from the browser." }));
    await page.getByLabel("Package (zip, tar or .skill)").setInputFiles(archive);
    await page.getByLabel("Changelog").fill("From the web form.");
    await shoot(page, "publish");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.waitForURL(/\/ui\/skills\/fresh-skill/);
    expect(await page.locator("section", { hasText: "Versions" }).textContent()).toContain("From the web form.");
    await context.close();
  }, 60_000);

  it("makes a token for a signed-in user and shows held versions to an admin", async () => {
    const { context, page } = await newPage();
    await signIn(page, admin);
    await page.goto(`${registry.url}/ui/tokens`);
    await page.getByLabel("Label").fill("laptop");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = (await page.locator("pre[data-copy]").textContent()) ?? "";
    expect(token).toMatch(/^skp_/);
    expect((await registry.store.authenticate(token))?.user).toBe("root");
    await page.goto(`${registry.url}/ui/admin/held`);
    expect(await page.locator("article h2").textContent()).toContain("setup-helper");
    await shoot(page, "held");
    await page.getByLabel("Reason").fill("false positive in the test");
    await page.getByRole("button", { name: "Reject" }).click();
    await page.waitForURL(/\/ui\/admin\/held$/);
    expect(await page.locator("main").textContent()).toContain("Nothing is held.");
    await context.close();
  }, 60_000);
});
