// Package archives in a Skillport registry (decision 0378): `POST /api/v1/packages` stores one (publish scope), `GET
// /api/v1/packages/<versionId>` serves it. The registry checks layout, versionId and audit on the way in; a runner
// still trusts nothing it fetched until the bytes match the job's digest.
import { z } from "zod";
import { fetchBounded } from "@skillport/remote";
import { RunnerError } from "./errors.js";
import { DEFAULT_MAX_PACKAGE_BYTES, verifyDigest, type PackageStore } from "./package-store.js";

export interface RegistryPackageStoreOptions {
  /** A token with the read scope (fetching from a registry that needs one) or publish scope (`put`). */
  token?: string;
  /** Largest archive accepted. Default 50 MiB. */
  maxBytes?: number;
  /** Per request, the body included. Default 120 s. */
  timeoutMs?: number;
  /** Further attempts after a 429, 5xx or network failure when fetching. Default 2. */
  retries?: number;
}

const putAnswer = z.object({
  package: z.object({ versionId: z.string(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) }),
});
const errorAnswer = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

const VERSION_ID = /^[a-f0-9]{24}$/;

/** A registry's package archives as a runner's package store. */
export class RegistryPackageStore implements PackageStore {
  readonly url: string;
  readonly #options: RegistryPackageStoreOptions;

  /** `url`: the registry's base address (`http://127.0.0.1:8790`). */
  constructor(url: string, options: RegistryPackageStoreOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RunnerError("JOB_INVALID", `${JSON.stringify(url)} is not a registry URL (http://host:port)`);
    }
    if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.username || parsed.password)
      throw new RunnerError("JOB_INVALID", `${parsed.origin}: a registry URL is http(s) without credentials in it`);
    this.url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
    this.#options = options;
  }

  async get(versionId: string, digest: string): Promise<Uint8Array> {
    if (!VERSION_ID.test(versionId))
      throw new RunnerError("JOB_INVALID", `${JSON.stringify(versionId)} is not a versionId`);
    const token = this.#options.token;
    let bytes: Uint8Array;
    try {
      const result = await fetchBounded(`${this.url}/api/v1/packages/${versionId}`, {
        maxBytes: this.#options.maxBytes ?? DEFAULT_MAX_PACKAGE_BYTES,
        timeoutMs: this.#options.timeoutMs ?? 120_000,
        retries: this.#options.retries ?? 2,
        retryBaseMs: 200,
        maxRetryDelayMs: 5_000,
        allowedOrigins: new Set(),
        headers: { accept: "application/zip" },
        ...(token ? { authorization: { origin: new URL(this.url).origin, value: `Bearer ${token}` } } : {}),
        secrets: token ? [token] : [],
      });
      bytes = result.bytes;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new RunnerError(
        /answered 404/.test(message) ? "PACKAGE_NOT_FOUND" : "PACKAGE_UNAVAILABLE",
        `package ${versionId} from ${this.url}: ${message}`,
        { cause: error },
      );
    }
    return verifyDigest(versionId, bytes, digest);
  }

  /** Stores an archive (from `packDirectory`) in the registry; returns what a job names it by. */
  async put(versionId: string, archive: Uint8Array): Promise<{ versionId: string; digest: string }> {
    const form = new FormData();
    form.set("archive", new Blob([archive], { type: "application/zip" }), `${versionId}.zip`);
    const token = this.#options.token;
    let res: Response;
    try {
      res = await fetch(`${this.url}/api/v1/packages`, {
        method: "POST",
        body: form,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        redirect: "error",
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 120_000),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new RunnerError("PACKAGE_UNAVAILABLE", `${this.url}: the registry did not answer (${cause})`, {
        cause: error,
      });
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new RunnerError("PACKAGE_UNAVAILABLE", `${this.url}: HTTP ${res.status}, not a Skillport registry answer`);
    }
    if (!res.ok) {
      const error = errorAnswer.safeParse(data);
      throw new RunnerError(
        "PACKAGE_UNAVAILABLE",
        `${this.url} refused package ${versionId}: ${error.success ? `${error.data.error.message} (${error.data.error.code})` : `HTTP ${res.status}`}`,
      );
    }
    const answer = putAnswer.safeParse(data);
    if (!answer.success) throw new RunnerError("PACKAGE_UNAVAILABLE", `${this.url}: not a Skillport registry answer`);
    if (answer.data.package.versionId !== versionId)
      throw new RunnerError(
        "PACKAGE_DIGEST",
        `${this.url} stored the archive as ${answer.data.package.versionId}, not ${versionId}`,
      );
    return { versionId, digest: answer.data.package.digest };
  }
}
