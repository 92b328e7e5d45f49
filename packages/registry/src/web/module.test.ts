// The web UI's headers, CSRF check and private-registry sign-in, through the app in process.
import { afterEach, describe, expect, it } from "vitest";
import { createRegistryApp, RegistryStore } from "../index.js";
import { testRegistryDb, type TestRegistryDb } from "../test-support/fixtures.js";

let db: TestRegistryDb | undefined;
let store: RegistryStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
});

async function open(readAccess: "public" | "token") {
  db = await testRegistryDb("sqlite");
  store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
  const token = (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
  return { app: createRegistryApp(store, { readAccess }), token };
}

const cookieOf = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith(`${name}=`)) ?? "";

describe("web UI", () => {
  it("serves pages with a strict CSP and leaves them out of the OpenAPI document", async () => {
    const { app } = await open("public");
    const res = await app.request("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'self';.*frame-ancestors 'none'/);
    expect(await res.text()).not.toMatch(/<script(?![^>]*src="\/ui\/assets\/app\.js")/);
    const doc = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p === "/" || p.startsWith("/ui/"))).toBe(false);
  });

  it("refuses a form post whose CSRF field does not match the cookie", async () => {
    const { app, token } = await open("public");
    const page = await app.request("/ui/signin");
    const csrf = cookieOf(page, "skillport_csrf");
    const value = csrf.split("=")[1] ?? "";
    const post = (field: string, origin?: string) =>
      app.request("/ui/signin", {
        method: "POST",
        headers: { cookie: csrf, "content-type": "application/x-www-form-urlencoded", ...(origin && { origin }) },
        body: new URLSearchParams({ csrf: field, token }),
      });
    expect((await post("0".repeat(64))).status).toBe(403);
    expect((await post(value, "https://evil.example")).status).toBe(403);
    const ok = await post(value);
    expect(ok.status).toBe(303);
    expect(ok.headers.getSetCookie().join("\n")).toMatch(
      /skillport_session=skp_[^;]+; Path=\/; HttpOnly; SameSite=Strict/,
    );
  });

  it("asks for sign-in on a registry whose reads need a token, and serves a signed-in browser", async () => {
    const { app, token } = await open("token");
    const anonymous = await app.request("/");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("needs a token to read");
    const signedIn = await app.request("/", { headers: { cookie: `skillport_session=${token}` } });
    expect(signedIn.status).toBe(200);
    expect((await app.request("/", { headers: { cookie: "skillport_session=skp_wrong" } })).status).toBe(401);
    expect((await app.request("/api/v1/skills")).status).toBe(401);
  });
});
