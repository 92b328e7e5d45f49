/**
 * A scripted model server on 127.0.0.1 that speaks both real protocols — OpenAI Chat Completions
 * (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`), JSON and server-sent events — and
 * replays a conversation: each request gets the next turn of the script. It checks each request the way the real
 * APIs do (required fields, headers, tool-result pairing) and answers 400 when one is malformed; every request is
 * recorded so tests can assert what the model was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  protocol: "openai" | "anthropic";
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  stream: boolean;
  /** Names of the tools offered. */
  toolNames: string[];
  tools: Array<Record<string, unknown>>;
  /** The texts of the tool results in this request's last turn. */
  toolResults: string[];
  system: string;
}

export type ScriptedReply =
  | { text: string; toolCalls?: undefined }
  | { text?: string; toolCalls: Array<{ name: string; arguments: unknown; id?: string }> }
  | { status: number; headers?: Record<string, string>; body?: string };

export type ScriptedTurn = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` (OpenAI clients use `${url}/v1`). */
  url: string;
  requests: RecordedRequest[];
  /** Turns not used yet. */
  remaining(): number;
  close(): Promise<void>;
}

export async function startScriptedServer(script: readonly ScriptedTurn[]): Promise<ScriptedServer> {
  const turns = [...script];
  const requests: RecordedRequest[] = [];
  let counter = 0;
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const protocol =
      req.url === "/v1/chat/completions" ? "openai" : req.url === "/v1/messages" ? "anthropic" : undefined;
    if (req.method !== "POST" || !protocol)
      return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      return send(res, 400, { error: { message: "body is not JSON" } });
    }
    const problem = protocol === "openai" ? checkOpenAI(req, body) : checkAnthropic(req, body);
    if (problem) return send(res, 400, { error: { type: "invalid_request_error", message: problem } });
    const recorded = record(protocol, req, body);
    requests.push(recorded);
    const turn = turns.shift();
    if (!turn) return send(res, 500, { error: { message: "the script has no more turns" } });
    const reply = typeof turn === "function" ? turn(recorded) : turn;
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }));
      return;
    }
    const calls = (reply.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${++counter}`,
      name: c.name,
      args: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    }));
    const text = reply.text ?? "";
    if (protocol === "openai")
      return recorded.stream ? openAIStream(res, text, calls) : send(res, 200, openAIJson(body, text, calls));
    return recorded.stream ? anthropicStream(res, body, text, calls) : send(res, 200, anthropicJson(body, text, calls));
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    remaining: () => turns.length,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Call {
  id: string;
  name: string;
  args: string;
}

function send(res: ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(json));
}

function record(
  protocol: "openai" | "anthropic",
  req: IncomingMessage,
  body: Record<string, unknown>,
): RecordedRequest {
  const tools = (body.tools as Array<Record<string, unknown>> | undefined) ?? [];
  const toolNames = tools.map((t) => String(protocol === "openai" ? (t.function as { name: string }).name : t.name));
  const messages = (body.messages as Array<Record<string, unknown>>) ?? [];
  let toolResults: string[] = [];
  let system = "";
  if (protocol === "openai") {
    const trailing: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--)
      trailing.unshift(String(messages[i]?.content));
    toolResults = trailing;
    system = String(messages.find((m) => m.role === "system")?.content ?? "");
  } else {
    const last = messages.at(-1);
    const blocks = Array.isArray(last?.content) ? (last.content as Array<Record<string, unknown>>) : [];
    toolResults = blocks
      .filter((b) => b.type === "tool_result")
      .map((b) => ((b.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? "").join("\n"));
    system = typeof body.system === "string" ? body.system : "";
  }
  return { protocol, headers: req.headers, body, stream: body.stream === true, toolNames, tools, toolResults, system };
}

function checkOpenAI(req: IncomingMessage, body: Record<string, unknown>): string | undefined {
  if (!String(req.headers.authorization ?? "").startsWith("Bearer ")) return "missing Authorization: Bearer";
  if (typeof body.model !== "string") return "model is required";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "messages must be a non-empty array";
  let pending = new Set<string>();
  for (const m of messages as Array<Record<string, unknown>>) {
    if (m.role === "tool") {
      if (!pending.has(String(m.tool_call_id)))
        return `tool message answers unknown tool_call_id ${String(m.tool_call_id)}`;
      pending.delete(String(m.tool_call_id));
      if (typeof m.content !== "string") return "tool message content must be a string";
      continue;
    }
    if (pending.size > 0)
      return "an assistant message with tool_calls must be followed by a tool message for each call";
    pending = new Set();
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls as Array<{
        id?: string;
        type?: string;
        function?: { name?: string; arguments?: unknown };
      }>) {
        if (c.type !== "function" || typeof c.function?.arguments !== "string")
          return "tool_calls entries need type function and string arguments";
        pending.add(String(c.id));
      }
    }
  }
  for (const t of (body.tools as Array<Record<string, unknown>> | undefined) ?? []) {
    const fn = t.function as { name?: string; parameters?: { type?: string } } | undefined;
    if (t.type !== "function" || !fn?.name || fn.parameters?.type !== "object")
      return "tools must be {type: function, function: {name, parameters: object schema}}";
  }
  return undefined;
}

function checkAnthropic(req: IncomingMessage, body: Record<string, unknown>): string | undefined {
  if (!req.headers["x-api-key"]) return "missing x-api-key header";
  if (!req.headers["anthropic-version"]) return "missing anthropic-version header";
  if (typeof body.model !== "string" || typeof body.max_tokens !== "number") return "model and max_tokens are required";
  const messages = body.messages as Array<{ role?: string; content?: unknown }> | undefined;
  if (!Array.isArray(messages) || messages.length === 0 || messages[0]?.role !== "user")
    return "messages must start with a user message";
  let previousUses = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (i > 0 && messages[i - 1]?.role === m.role) return "roles must alternate between user and assistant";
    const blocks = Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [];
    if (m.role === "user") {
      const results = blocks.filter((b) => b.type === "tool_result");
      for (const r of results)
        if (!previousUses.has(String(r.tool_use_id)))
          return `tool_result for unknown tool_use_id ${String(r.tool_use_id)}`;
      if (previousUses.size > 0 && results.length !== previousUses.size)
        return "every tool_use needs a tool_result in the next user message";
      previousUses = new Set();
    } else {
      previousUses = new Set(blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id)));
      for (const b of blocks)
        if (b.type === "tool_use" && (typeof b.input !== "object" || b.input === null))
          return "tool_use input must be an object";
    }
  }
  for (const t of (body.tools as Array<Record<string, unknown>> | undefined) ?? []) {
    if (typeof t.name !== "string" || (t.input_schema as { type?: string } | undefined)?.type !== "object")
      return "tools must be {name, input_schema: object schema}";
  }
  return undefined;
}

function openAIJson(body: Record<string, unknown>, text: string, calls: Call[]) {
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: 1,
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: calls.length > 0 && text === "" ? null : text,
          ...(calls.length > 0 && {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.args },
            })),
          }),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function openAIStream(res: ServerResponse, text: string, calls: Call[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: unknown, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  chunk({ role: "assistant", content: "" });
  for (const piece of split(text)) chunk({ content: piece });
  calls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of split(call.args)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, calls.length > 0 ? "tool_calls" : "stop");
  res.write(
    `data: ${JSON.stringify({ id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
}

function anthropicJson(body: Record<string, unknown>, text: string, calls: Call[]) {
  return {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model: body.model,
    content: [
      ...(text ? [{ type: "text", text }] : []),
      ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.args) as unknown })),
    ],
    stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

function anthropicStream(res: ServerResponse, body: Record<string, unknown>, text: string, calls: Call[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", {
    message: {
      id: "msg_scripted",
      type: "message",
      role: "assistant",
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  event("ping", {});
  let index = 0;
  if (text) {
    event("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const piece of split(text))
      event("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    event("content_block_stop", { index });
    index++;
  }
  for (const call of calls) {
    event("content_block_start", {
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    for (const piece of split(call.args))
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    event("content_block_stop", { index });
    index++;
  }
  event("message_delta", {
    delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  event("message_stop", {});
  res.end();
}

/** Three pieces, so clients must join deltas. */
function split(text: string): string[] {
  if (text.length < 3) return text === "" ? [] : [text];
  const a = Math.floor(text.length / 3);
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)];
}
