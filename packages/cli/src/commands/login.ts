import type { Command } from "commander";
import { CliError, EXIT_ERROR, type CliOutput } from "../io.js";
import { callRegistry, normaliseRegistryUrl, readCredentials, writeCredentials } from "../registry-client.js";

/** `skillport login`: a registry token, checked with the registry, kept 0600 under the user's config folder. */
export function registerLogin(program: Command, io: CliOutput): void {
  program
    .command("login")
    .description(
      "store a registry token (checked with the registry first) for publish; kept mode 0600 under ~/.config/skillport",
    )
    .requiredOption("--registry <url>", "the registry (http://host:port)")
    .option("--token <token>", "the token (default: $SKILLPORT_REGISTRY_TOKEN, else one line on stdin)")
    .addHelpText(
      "after",
      "\nExamples:\n  skillport registry token create --user alice --scope publish | skillport login --registry http://127.0.0.1:8787",
    )
    .action(async (options: { registry: string; token?: string }) => {
      const url = normaliseRegistryUrl(options.registry);
      const token = (options.token ?? process.env.SKILLPORT_REGISTRY_TOKEN ?? (await readStdinLine())).trim();
      if (token === "")
        throw new CliError("no token: pass --token, set SKILLPORT_REGISTRY_TOKEN, or pipe it on stdin", EXIT_ERROR);
      const who = await callRegistry<{ user: string; scopes: string[] }>(url, "/api/v1/whoami", { token });
      const credentials = await readCredentials();
      credentials.registries[url] = { token, user: who.user };
      credentials.default = url;
      const file = await writeCredentials(credentials);
      io.stdout(`logged in to ${url} as ${who.user} (${who.scopes.join(", ")}); token kept in ${file}\n`);
    });
}

/** `skillport logout`: forgets a registry's token. */
export function registerLogout(program: Command, io: CliOutput): void {
  program
    .command("logout")
    .description("forget the token of a registry (default: the last one logged in to)")
    .option("--registry <url>", "the registry")
    .action(async (options: { registry?: string }) => {
      const credentials = await readCredentials();
      const chosen = options.registry ?? credentials.default;
      if (chosen === undefined) throw new CliError("not logged in to any registry", EXIT_ERROR);
      const url = normaliseRegistryUrl(chosen);
      const had = url in credentials.registries;
      delete credentials.registries[url];
      if (credentials.default === url) delete credentials.default;
      await writeCredentials(credentials);
      io.stdout(had ? `logged out of ${url}\n` : `no token was kept for ${url}\n`);
    });
}

async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError("no token: pass --token or pipe it on stdin", EXIT_ERROR);
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.length > 4096) break;
  }
  return text.split("\n")[0] ?? "";
}
