// Real git servers on 127.0.0.1 for tests: `git daemon` and `git http-backend` behind a tiny node HTTP server (CGI).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { freePort } from "@skillport/testing";
import path from "node:path";

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.test",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.test",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A bare repository `<root>/<name>.git` and a work tree `<root>/<name>-work` that pushes to it. */
export async function makeRepo(root: string, name: string): Promise<{ bare: string; work: string }> {
  const bare = path.join(root, `${name}.git`);
  const work = path.join(root, `${name}-work`);
  git(root, "init", "-q", "--bare", "-b", "main", bare);
  git(bare, "config", "uploadpack.allowFilter", "true");
  git(bare, "config", "http.receivepack", "true");
  git(root, "init", "-q", "-b", "main", work);
  git(work, "remote", "add", "origin", bare);
  return { bare, work };
}

/** Writes files (relative path → content) into the work tree, commits everything and pushes `main`. Returns the commit. */
export async function commitAndPush(
  work: string,
  files: Record<string, string | Uint8Array>,
  message = "change",
): Promise<string> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(work, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  git(work, "add", "-A");
  git(work, "commit", "-q", "--allow-empty", "-m", message);
  git(work, "push", "-q", "origin", "HEAD:main");
  return git(work, "rev-parse", "HEAD");
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** `git daemon` exporting every repository under `base`; resolves once it accepts connections. */
export async function startGitDaemon(base: string): Promise<RunningServer & { port: number }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "git",
    ["daemon", "--reuseaddr", `--base-path=${base}`, "--export-all", `--port=${port}`, "--listen=127.0.0.1", base],
    { env: GIT_ENV, stdio: "ignore" },
  );
  for (let i = 0; i < 200; i++) {
    if (await canConnect(port)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    port,
    url: `git://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export interface HttpBackendOptions {
  /** Require HTTP Basic credentials `user:password`. */
  credentials?: string;
}

/** Decides a request before git sees it: a status to answer (401, 403, …), or undefined to serve it. */
export type RequestGuard = (authorization: string | undefined) => number | undefined;

/** Basic credentials (`user:password`) as the Authorization header value. */
export function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/** A node HTTP server running `git http-backend` as CGI for repositories under `base`. */
export async function startHttpBackend(
  base: string,
  options: HttpBackendOptions = {},
): Promise<RunningServer & { requests: string[]; guard: RequestGuard | undefined }> {
  const requests: string[] = [];
  const state: { guard: RequestGuard | undefined } = { guard: undefined };
  if (options.credentials !== undefined) {
    const expected = basic(options.credentials);
    state.guard = (authorization) => (authorization === expected ? undefined : 401);
  }
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method ?? "GET"} ${url.pathname}`);
    const status = state.guard?.(req.headers.authorization);
    if (status !== undefined) {
      res.writeHead(status, status === 401 ? { "WWW-Authenticate": 'Basic realm="git"' } : {});
      res.end(status === 401 ? "authentication required\n" : "refused\n");
      return;
    }
    const child = spawn("git", ["http-backend"], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: base,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_ADDR: "127.0.0.1",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    child.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get guard() {
      return state.guard;
    },
    set guard(guard: RequestGuard | undefined) {
      state.guard = guard;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
