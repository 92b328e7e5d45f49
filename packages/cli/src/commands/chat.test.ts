// `skillport chat` edges (issue 20 item 15), in-process against real HTTP servers on 127.0.0.1: what a wrong base
// URL, an empty prompt or a missing key print, and how the answer and a waiting indicator reach a terminal.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../../agent/test/scripted-server.js";
import type { CliIO } from "../io.js";
import { runCli } from "../program.js";
import { skillMd, tempTree } from "../test-support.js";

let skills: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  skills = await tempTree({ "notes/SKILL.md": skillMd("notes") });
});
afterAll(() => skills.cleanup());

const savedKeys = {
  OPENAI_API_KEY: process.env.OPENAI_API_KEY,
  ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY,
  SKILLPORT_TEST_KEY: process.env.SKILLPORT_TEST_KEY,
};
afterEach(() => {
  for (const [name, value] of Object.entries(savedKeys)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

interface Captured {
  io: CliIO;
  out: { stdout: string; stderr: string };
}

/** Captured output; `terminal` says both streams are terminals (progress on stderr, streaming on stdout). */
function capture(terminal: boolean): Captured {
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    color: false,
    progress: terminal,
    terminal,
    cwd: skills.dir,
  };
  return { io, out };
}

async function chat(args: string[], terminal = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const { io, out } = capture(terminal);
  const code = await runCli(["chat", skills.dir, ...args], io);
  return { code, ...out };
}

/** Polls until `check` holds (a guard against a hang, not a timing assertion). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** An OpenAI-compatible server that streams `first`, then holds the reply until `release()`, then streams `rest`. */
async function holdingServer(
  first: string,
  rest: string,
): Promise<{ url: string; requests: IncomingMessage[]; release: () => void; close: () => Promise<void> }> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const requests: IncomingMessage[] = [];
  const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
  const server: Server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (first !== "") res.write(chunk(first));
      void released.then(() => {
        res.end(
          `${chunk(rest)}data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
        );
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    requests,
    release: () => release(),
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe("skillport chat: bad input is one line and exit 2, before anything is sent", () => {
  it.each([true, false])(
    "a 200 reply that is a web page (a wrong --base-url) is an error naming the base URL, not an empty answer (streaming: %s)",
    async (stream) => {
      process.env.OPENAI_API_KEY = "k-1234";
      const server = await startScriptedServer([
        { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: "<!doctype html><p>UI</p>" },
      ]);
      try {
        const result = await chat([
          "--model",
          "openai:m",
          "--base-url",
          `${server.url}/v1`,
          "-p",
          "hi",
          ...(stream ? [] : ["--no-stream"]),
        ]);
        expect(result).toEqual({
          code: 2,
          stdout: "",
          stderr: `skillport: the OpenAI-compatible server at ${server.url}/v1 answered with a web page (text/html), not an API reply: check the base URL\n`,
        });
      } finally {
        await server.close();
      }
    },
  );

  it("--base-url without a scheme is refused at once, without retrying", async () => {
    process.env.OPENAI_API_KEY = "k-1234";
    const result = await chat(["--model", "openai:m", "--base-url", "127.0.0.1:9/v1", "-p", "hi"]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: 'skillport: base URL "127.0.0.1:9/v1" must start with http:// or https://\n',
    });
  });

  it.each(["", "   "])("-p %j is refused and nothing is sent", async (prompt) => {
    process.env.OPENAI_API_KEY = "k-1234";
    const server = await startScriptedServer([{ text: "an answer to nothing" }]);
    try {
      const result = await chat(["--model", "openai:m", "--base-url", `${server.url}/v1`, "-p", prompt]);
      expect(result).toEqual({ code: 2, stdout: "", stderr: "skillport: -p needs a message: the prompt is empty\n" });
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it.each([
    ["openai:m", "OPENAI_API_KEY"],
    ["anthropic:c", "ANTHROPIC_API_KEY"],
  ])("a missing key for %s names the CLI's ways to give one", async (model, variable) => {
    delete process.env.OPENAI_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    const result = await chat(["--model", model, "-p", "hi"]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `skillport: ${variable} is not set: export it, or pass --api-key-env NAME to read the key from another variable\n`,
    });
  });

  it("--api-key-env NAME reads the key from that variable, and says so when it is unset", async () => {
    delete process.env.OPENAI_API_KEY;
    const server = await startScriptedServer([{ text: "hello" }]);
    try {
      delete process.env.SKILLPORT_TEST_KEY;
      expect(
        await chat([
          "--model",
          "openai:m",
          "--base-url",
          `${server.url}/v1`,
          "--api-key-env",
          "SKILLPORT_TEST_KEY",
          "-p",
          "hi",
        ]),
      ).toEqual({
        code: 2,
        stdout: "",
        stderr: "skillport: SKILLPORT_TEST_KEY is not set (named by --api-key-env)\n",
      });
      process.env.SKILLPORT_TEST_KEY = "sk-from-elsewhere";
      expect(
        await chat([
          "--model",
          "openai:m",
          "--base-url",
          `${server.url}/v1`,
          "--api-key-env",
          "SKILLPORT_TEST_KEY",
          "-p",
          "hi",
        ]),
      ).toEqual({ code: 0, stdout: "hello\n", stderr: "" });
      expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-from-elsewhere");
    } finally {
      await server.close();
    }
  });
});

describe("skillport chat -p on a terminal and piped", () => {
  it("streams the answer on a terminal as it arrives", async () => {
    process.env.OPENAI_API_KEY = "k-1234";
    const server = await holdingServer("Hel", "lo");
    try {
      const { io, out } = capture(true);
      const done = runCli(["chat", skills.dir, "--model", "openai:m", "--base-url", server.url, "-p", "hi"], io);
      await until(() => out.stdout.includes("Hel"), "the first part of the answer on stdout");
      expect(out.stdout).toBe("Hel");
      server.release();
      expect(await done).toBe(0);
      expect(out.stdout).toBe("Hello\n");
    } finally {
      await server.close();
    }
  });

  it("shows a waiting indicator with the elapsed time on a terminal while the model is silent, and clears it", async () => {
    process.env.OPENAI_API_KEY = "k-1234";
    const server = await holdingServer("", "Done.");
    try {
      const { io, out } = capture(true);
      const done = runCli(["chat", skills.dir, "--model", "openai:m", "--base-url", server.url, "-p", "hi"], io);
      await until(() => out.stderr.includes("waiting for openai:m… 0s"), "the waiting indicator");
      server.release();
      expect(await done).toBe(0);
      expect(out.stdout).toBe("Done.\n");
      expect(out.stderr.endsWith("\r\u001b[2K")).toBe(true); // cleared before the answer
    } finally {
      await server.close();
    }
  });

  it("prints neither the indicator nor a partial answer when piped", async () => {
    process.env.OPENAI_API_KEY = "k-1234";
    const server = await holdingServer("Hel", "lo");
    try {
      const { io, out } = capture(false);
      const done = runCli(["chat", skills.dir, "--model", "openai:m", "--base-url", server.url, "-p", "hi"], io);
      await until(() => server.requests.length === 1, "the request");
      server.release();
      expect(await done).toBe(0);
      expect(out).toEqual({ stdout: "Hello\n", stderr: "" });
    } finally {
      await server.close();
    }
  });
});
