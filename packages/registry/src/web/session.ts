import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { RegistryError } from "../errors.js";
import type { RegistryStore } from "../store.js";
import type { Actor } from "../types.js";

const SESSION = "skillport_session";
const CSRF = "skillport_csrf";

function cookieOptions(c: Context, origin: string) {
  return {
    httpOnly: true,
    sameSite: "Strict" as const,
    path: "/",
    secure: origin.startsWith("https:") || new URL(c.req.url).protocol === "https:",
  };
}

/** The signed-in user: the token kept in the HttpOnly, SameSite=Strict session cookie. A bad token signs out. */
export async function sessionActor(c: Context, store: RegistryStore, origin: string): Promise<Actor | undefined> {
  const token = getCookie(c, SESSION);
  if (token === undefined) return undefined;
  const actor = token.length <= 200 ? await store.authenticate(token) : undefined;
  if (!actor) deleteCookie(c, SESSION, cookieOptions(c, origin));
  return actor;
}

export function signIn(c: Context, token: string, origin: string): void {
  setCookie(c, SESSION, token, cookieOptions(c, origin));
}

export function signOut(c: Context, origin: string): void {
  deleteCookie(c, SESSION, cookieOptions(c, origin));
}

/** The CSRF value for this browser (double submit: an HttpOnly cookie and a hidden field that must match). */
export function csrfToken(c: Context, origin: string): string {
  const existing = getCookie(c, CSRF);
  if (existing !== undefined && /^[0-9a-f]{64}$/.test(existing)) return existing;
  const fresh = randomBytes(32).toString("hex");
  setCookie(c, CSRF, fresh, cookieOptions(c, origin));
  return fresh;
}

/** Refuses a form post whose hidden `csrf` field does not match the cookie, or that names another origin. */
export function checkCsrf(c: Context, field: unknown, origin: string): void {
  const cookie = getCookie(c, CSRF) ?? "";
  const sent = typeof field === "string" ? field : "";
  const from = c.req.header("origin");
  // The registry sends Referrer-Policy: no-referrer, so browsers send `Origin: null` on its own forms: the token is
  // the check; an origin that is named must be this one.
  const sameOrigin = from === undefined || from === "null" || from === origin || from === new URL(c.req.url).origin;
  const match = cookie.length === 64 && sent.length === 64 && timingSafeEqual(Buffer.from(cookie), Buffer.from(sent));
  if (!match || !sameOrigin)
    throw new RegistryError(
      "REGISTRY_FORBIDDEN",
      "the form's CSRF token is missing or stale: reload the page and try again",
    );
}
