import { createInterface } from "node:readline/promises";
import { InvalidArgumentError, type Command } from "commander";
import {
  AgentError,
  createModel,
  resultText,
  runAgent,
  type AgentEvent,
  type AgentMessage,
  type ModelClient,
  type SkillBox,
} from "@skillport/agent";
import { CliError, colors, EXIT_ERROR, printJson, type CliOutput } from "../io.js";
import { boxOptions, buildBox, type BoxOptions, type BuiltBox } from "./agent-setup.js";

interface ChatOptions extends BoxOptions {
  model: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  prompt?: string;
  json?: boolean;
  maxSteps: number;
  stream: boolean;
  system?: string;
}

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
const EXIT_INTERRUPTED = 130;

function variableName(value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
    throw new InvalidArgumentError(`expected an environment variable name, got ${JSON.stringify(value)}`);
  return value;
}

function steps(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return n;
}

export function registerChat(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  boxOptions(
    program
      .command("chat")
      .description(
        "talk to a model that has these skills: it sees the skills catalog, loads skills with load_skill_through_path, and " +
          "(with --code-exec) runs their scripts in a sandbox. Keys come from OPENAI_API_KEY or ANTHROPIC_API_KEY (or --api-key-env). " +
          "On a terminal without -p this is a REPL (/reset clears the conversation, /exit or Ctrl-D leaves).",
      )
      .argument("[roots...]", "folders of skills or skill folders, highest precedence first")
      .requiredOption(
        "-m, --model <provider:model>",
        "openai:<model> (any OpenAI-compatible Chat Completions server) or anthropic:<model>",
      )
      .option("--base-url <url>", "the server, e.g. http://127.0.0.1:11434/v1 (default: the provider's API)")
      .option(
        "--api-key-env <name>",
        "read the API key from this environment variable (default: OPENAI_API_KEY or ANTHROPIC_API_KEY)",
        variableName,
      )
      .option("-p, --prompt <text>", "one message; prints the final answer and exits")
      .option("--json", "with -p: print the whole transcript (messages, tool calls, results, usage) as JSON")
      .option("--max-steps <n>", "most model calls per message", steps, 20)
      .option("--no-stream", "wait for whole answers instead of streaming them")
      .option("--system <text>", "your own instructions, before the skills section"),
  ).action(async (roots: string[], options: ChatOptions) => {
    if (options.prompt !== undefined && options.prompt.trim() === "")
      throw new CliError("-p needs a message: the prompt is empty");
    const model = modelFor(options);
    // Ctrl-C outside the REPL (which handles it itself) cancels the run, so the box closes and its temporary work
    // folder is removed on the way out; a second Ctrl-C kills at once.
    const conversation = options.prompt === undefined && Boolean(process.stdin.isTTY);
    const interrupt = new AbortController();
    const onSigint = () => interrupt.abort();
    if (!conversation) process.once("SIGINT", onSigint);
    let built: BuiltBox | undefined;
    try {
      built = await buildBox(roots, options, io, setExit);
      const box = built.box;
      if (options.prompt !== undefined) await oneShot(options.prompt, model, box, options, io, interrupt.signal);
      else if (conversation) await repl(model, box, options, io);
      else {
        const text = await readStdin();
        if (text.trim() === "")
          throw new CliError(
            "nothing to send: pass -p <prompt>, pipe a message in, or run on a terminal for a conversation",
          );
        await oneShot(text, model, box, options, io, interrupt.signal);
      }
    } finally {
      process.removeListener("SIGINT", onSigint);
      await built?.close();
    }
    if (interrupt.signal.aborted) throw new CliError("cancelled", EXIT_INTERRUPTED);
  });
}

function modelFor(options: ChatOptions): ModelClient {
  const keyVariable =
    options.apiKeyEnv ?? (options.model.trim().startsWith("anthropic:") ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  const apiKey = options.apiKeyEnv === undefined ? undefined : process.env[options.apiKeyEnv];
  if (options.apiKeyEnv !== undefined && apiKey === undefined)
    throw new CliError(`${options.apiKeyEnv} is not set (named by --api-key-env)`);
  try {
    return createModel(options.model, {
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...(apiKey !== undefined && { apiKey }),
      stream: options.stream,
    });
  } catch (error) {
    if (error instanceof AgentError && error.code === "MODEL_AUTH") {
      throw new CliError(
        `${keyVariable} is not set: export it, or pass --api-key-env NAME to read the key from another variable`,
        EXIT_ERROR,
      );
    }
    if (error instanceof AgentError) throw new CliError(error.message, EXIT_ERROR);
    throw error;
  }
}

/** Model errors (unreachable, refused key, HTTP errors) end the command with exit 2 and one line. */
async function run(options: Parameters<typeof runAgent>[0]): Promise<Awaited<ReturnType<typeof runAgent>>> {
  try {
    return await runAgent(options);
  } catch (error) {
    if (error instanceof AgentError) throw new CliError(error.message, EXIT_ERROR);
    throw error;
  }
}

async function oneShot(
  prompt: string,
  model: ModelClient,
  box: SkillBox,
  options: ChatOptions,
  io: CliOutput,
  signal: AbortSignal,
): Promise<void> {
  // On a terminal the answer streams as in the conversation; piped, only the final answer is printed.
  const streaming = Boolean(io.terminal) && options.stream && !options.json;
  const waiting = waitingIndicator(io, `${model.provider}:${model.model}`);
  let streamed = false;
  const result = await run({
    model,
    box,
    messages: prompt,
    maxSteps: options.maxSteps,
    signal,
    ...(options.system && { system: options.system }),
    onEvent: (event) => {
      waiting.on(event);
      if (streaming && event.type === "text") {
        io.data(event.delta);
        streamed = true;
      } else if (streaming && event.type === "message" && streamed) {
        io.stdout("\n");
        streamed = false;
      } else showProgress(event, io);
    },
  }).finally(() => waiting.stop());
  if (result.stopReason === "aborted") return;
  if (options.json) {
    printJson(io, {
      model: `${model.provider}:${model.model}`,
      stopReason: result.stopReason,
      steps: result.steps,
      usage: result.usage,
      text: result.text,
      messages: result.messages,
    });
    return;
  }
  if (!streaming) io.data(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  if (result.stopReason === "max_steps")
    io.stderr(`${colors(io).yellow("warning")}  stopped after ${result.steps} steps (--max-steps)\n`);
}

/**
 * While a model call has given no sign of life: `waiting for <model>… 12s` on stderr, redrawn every second and
 * cleared when the first text, tool call or retry arrives. Only on a terminal (`io.progress`): piped, nothing.
 */
function waitingIndicator(io: CliOutput, label: string): { on: (event: AgentEvent) => void; stop: () => void } {
  if (!io.progress) return { on: () => undefined, stop: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    io.status("");
  };
  const start = () => {
    stop();
    const since = Date.now();
    const draw = () => io.status(`waiting for ${label}… ${Math.floor((Date.now() - since) / 1000)}s`);
    draw();
    timer = setInterval(draw, 1000);
    timer.unref();
  };
  return {
    on: (event) => {
      if (event.type === "step") start();
      else stop();
    },
    stop,
  };
}

/** Tool calls, compactly, on stderr when it is a terminal. */
function showProgress(event: AgentEvent, io: CliOutput): void {
  if (!io.progress) return;
  const c = colors(io);
  if (event.type === "tool_call") io.stderr(c.dim(`  → ${event.call.name}(${compactArgs(event.call.rawArguments)})\n`));
  else if (event.type === "tool_result")
    io.stderr(c.dim(`  ← ${event.result.isError ? c.red("error") : "ok"} ${firstLine(resultText(event.result))}\n`));
  else if (event.type === "retry")
    io.stderr(c.dim(`  … ${event.retry.reason}, retrying in ${Math.round(event.retry.delayMs / 100) / 10}s\n`));
}

async function repl(model: ModelClient, box: SkillBox, options: ChatOptions, io: CliOutput): Promise<void> {
  const c = colors(io);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let messages: AgentMessage[] = [];
  let controller: AbortController | undefined;
  rl.on("SIGINT", () => {
    if (controller) controller.abort();
    else rl.close();
  });
  io.stderr(c.dim(`${model.provider}:${model.model} · ${box.listSkills().length} skills · /reset, /exit\n`));
  try {
    for (;;) {
      let line: string;
      try {
        line = await rl.question(c.bold("› "));
      } catch {
        break; // Ctrl-D / closed
      }
      const text = line.trim();
      if (text === "") continue;
      if (text === "/exit" || text === "/quit") break;
      if (text === "/reset") {
        messages = [];
        box.deactivateAll();
        io.stderr(c.dim("conversation cleared\n"));
        continue;
      }
      controller = new AbortController();
      let streamed = false;
      const waiting = waitingIndicator(io, `${model.provider}:${model.model}`);
      const result = await run({
        model,
        box,
        messages: [...messages, { role: "user", content: text }],
        maxSteps: options.maxSteps,
        signal: controller.signal,
        ...(options.system && { system: options.system }),
        onEvent: (event) => {
          waiting.on(event);
          if (event.type === "text") {
            io.data(event.delta);
            streamed = true;
          } else if (event.type === "message" && streamed) {
            io.stdout("\n");
            streamed = false;
          } else showProgress(event, { ...io, progress: true });
        },
      }).finally(() => waiting.stop());
      controller = undefined;
      if (!options.stream && result.text) io.data(`${result.text}\n`);
      if (result.stopReason === "aborted") io.stderr(c.dim("(cancelled)\n"));
      messages = result.messages;
    }
  } finally {
    rl.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function compactArgs(raw: string): string {
  const one = raw.replace(/\s+/g, " ");
  return one.length > 100 ? `${one.slice(0, 99)}…` : one;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
