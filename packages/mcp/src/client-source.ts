import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient, type Skill } from "@modelcontextprotocol/client/ext/skills";
import {
  AgentSkillsError,
  InvalidPathError,
  normalizeResourcePath,
  ResourceNotFoundError,
  SkillNotFoundError,
  SkillSourceProvider,
  type Frontmatter,
  type SkillFile,
} from "@skillport/core";

export interface McpSkillSourceOptions {
  /** `mcp+http://host:port/path`, `mcp+https://…` or `mcp+stdio:<command> [args…]` (split on spaces, no shell). */
  address: string;
  /** Bearer token for HTTP servers. Default: `$SKILLPORT_MCP_TOKEN` when set. Never part of the name. */
  token?: string;
  /**
   * Keep `allowed-tools` from these skills' frontmatter. MCP-origin skills are untrusted: by default their
   * `allowed-tools` is dropped from the metadata (and so from what a model or an installer is granted).
   */
  approvedAllowedTools?: boolean | ((id: string, uri: string) => boolean);
}

/** An MCP server could not be reached, or answered outside the extension. */
export class McpSourceError extends AgentSkillsError<"MCP_SOURCE"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: "MCP_SOURCE", ...options });
  }
}

function redact(address: string): string {
  try {
    const url = new URL(address);
    if (url.password !== "" || url.username !== "") {
      url.username = "";
      url.password = "";
    }
    url.search = "";
    return url.href;
  } catch {
    return address;
  }
}

/**
 * Skills read FROM another MCP server that speaks the Skills extension: a Skillport source like any other (list,
 * copy, add, chat). Listing costs one walk of `skills/list` (frontmatter only); a body or file is requested when it is
 * asked for, never before, and every file goes through the SDK's verifying client (digest, size, and for SKILL.md the
 * frontmatter against the entry). Skills are named by the server (the source name) and their URI; `allowed-tools`
 * from the server is dropped unless approved.
 */
export class McpSkillSource extends SkillSourceProvider {
  readonly name: string;
  readonly #options: McpSkillSourceOptions;
  #connection: Promise<{ client: Client; skills: SkillsClient }> | undefined;
  #entries: Promise<Map<string, Skill>> | undefined;

  constructor(options: McpSkillSourceOptions) {
    super();
    if (!/^mcp\+(?:https?:\/\/|stdio:)/i.test(options.address))
      throw new McpSourceError(
        `an MCP source address is mcp+http://host:port/path, mcp+https://… or mcp+stdio:<command>, not ${JSON.stringify(redact(options.address))}`,
      );
    this.#options = options;
    this.name = redact(options.address);
  }

  #connect(): Promise<{ client: Client; skills: SkillsClient }> {
    this.#connection ??= (async () => {
      const address = this.#options.address;
      let transport: Transport;
      if (/^mcp\+stdio:/i.test(address)) {
        const [command, ...args] = address.slice("mcp+stdio:".length).trim().split(/\s+/);
        if (command === undefined || command === "")
          throw new McpSourceError("mcp+stdio: needs a command, e.g. mcp+stdio:skillport mcp ./skills");
        transport = new StdioClientTransport({ command, args, stderr: "ignore" });
      } else {
        const token = this.#options.token ?? process.env.SKILLPORT_MCP_TOKEN;
        transport = new StreamableHTTPClientTransport(
          new URL(address.slice("mcp+".length)),
          token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
        );
      }
      const client = new Client({ name: "skillport", version: "0.1.0" });
      try {
        await client.connect(transport);
      } catch (error) {
        throw new McpSourceError(
          `${this.name} could not be reached: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      const skills = new SkillsClient(client);
      if (!skills.supported) {
        await client.close();
        throw new McpSourceError(`${this.name} does not serve the Skills extension (io.modelcontextprotocol/skills)`);
      }
      return { client, skills };
    })();
    this.#connection.catch(() => {
      this.#connection = undefined;
    });
    return this.#connection;
  }

  /** Id → entry, from one walk of skills/list; an id is the skill's name (the last segment of its URI). */
  #listing(): Promise<Map<string, Skill>> {
    this.#entries ??= (async () => {
      const { skills } = await this.#connect();
      const listing = await skills.list();
      const byId = new Map<string, Skill>();
      for (const entry of listing.skills) {
        const id = entry.frontmatter.name;
        // A second entry with the same name is left out: ids must be unique in a source.
        if (!byId.has(id)) byId.set(id, entry);
      }
      return byId;
    })();
    this.#entries.catch(() => {
      this.#entries = undefined;
    });
    return this.#entries;
  }

  async #entry(id: string): Promise<Skill> {
    const entry = (await this.#listing()).get(id);
    if (entry === undefined) throw new SkillNotFoundError(id);
    return entry;
  }

  /** The URI of a skill's root, no trailing slash. */
  #root(entry: Skill): string {
    return entry.uri.slice(0, -"/SKILL.md".length);
  }

  async discover(): Promise<string[]> {
    return [...(await this.#listing()).keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    const entry = await this.#entry(id);
    const frontmatter = structuredClone(entry.frontmatter) as Frontmatter;
    const approve = this.#options.approvedAllowedTools;
    const approved = typeof approve === "function" ? approve(id, entry.uri) : approve === true;
    if (!approved) delete frontmatter["allowed-tools"];
    return frontmatter;
  }

  async getBody(id: string): Promise<string> {
    const entry = await this.#entry(id);
    const { skills } = await this.#connect();
    const file = await skills.read(entry);
    return file.body ?? "";
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    const entry = await this.#entry(id);
    if (entry.resources === "dynamic")
      throw new McpSourceError(
        `${this.name}: ${entry.uri} lists its files as "dynamic"; Skillport reads only skills with a complete file list`,
      );
    const root = this.#root(entry);
    return entry.resources
      .map((r) => ({ path: decodeURIComponent(r.uri.slice(root.length + 1)), size: r.size, digest: r.digest }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readFile(id: string, path: string): Promise<Uint8Array> {
    let normal: string;
    try {
      normal = normalizeResourcePath(path);
    } catch (error) {
      if (error instanceof InvalidPathError) throw error;
      throw new InvalidPathError(path, String(error));
    }
    const files = await this.listFiles(id);
    if (!files.some((f) => f.path === normal)) throw new ResourceNotFoundError(id, normal);
    const { skills } = await this.#connect();
    const file = await skills.read(await this.#entry(id), normal.split("/").map(encodeURIComponent).join("/"));
    return file.bytes;
  }

  /** Forget the listing: the next call walks skills/list again. */
  invalidate(): void {
    this.#entries = undefined;
  }

  /** Closes the connection (a stdio server process ends with it). */
  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    this.#entries = undefined;
    if (connection !== undefined) await (await connection.catch(() => undefined))?.client.close();
  }
}
