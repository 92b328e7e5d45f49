import type { CommandEntry } from "./command-entry.js";

export type { CommandEntry } from "./command-entry.js";

// One file per command, in help order: skills, then packages and runtime, then plugins.
export const commands: readonly CommandEntry[] = [
  {
    name: "validate",
    summary: "check SKILL.md files against a rule profile",
    load: async () => (await import("./validate.js")).registerValidate,
  },
  {
    name: "audit",
    summary: "audit what skills ask an agent to do (findings, verdict, inventory, --diff)",
    load: async () => (await import("./audit.js")).registerAudit,
  },
  {
    name: "list",
    summary: "list the skills in folders of skills or databases",
    load: async () => (await import("./list.js")).registerList,
  },
  {
    name: "show",
    summary: "show a skill's metadata, instructions and files, or one file",
    load: async () => (await import("./show.js")).registerShow,
  },
  {
    name: "prompt",
    summary: "print the skills catalog a model sees",
    load: async () => (await import("./prompt.js")).registerPrompt,
  },
  {
    name: "search",
    summary: "find skills by name, description and tags",
    load: async () => (await import("./search.js")).registerSearch,
  },
  {
    name: "add",
    summary: "install skills into the folders your agents read (links or copies, skills-lock.json)",
    load: async () => (await import("./add.js")).registerAdd,
  },
  {
    name: "remove",
    summary: "remove installed skills from every agent folder and the lockfile",
    load: async () => (await import("./remove.js")).registerRemove,
  },
  {
    name: "update",
    summary: "re-install the locked skills whose source changed and print what changed",
    load: async () => (await import("./update.js")).registerUpdate,
  },
  {
    name: "outdated",
    summary: "show the installed skills whose source changed since they were locked",
    load: async () => (await import("./outdated.js")).registerOutdated,
  },
  {
    name: "install",
    summary: "restore the skills skills-lock.json names, verifying every digest",
    load: async () => (await import("./install.js")).registerInstall,
  },
  {
    name: "doctor",
    summary: "check installed skills against the lockfile and each agent's folder (--fix repairs what is safe)",
    load: async () => (await import("./doctor.js")).registerDoctor,
  },
  {
    name: "mcp",
    summary: "serve skills over MCP (Skills extension + tool fallback) on stdio or Streamable HTTP",
    load: async () => (await import("./mcp.js")).registerMcp,
  },
  {
    name: "copy",
    summary: "copy skills between folders and databases (SQLite, PostgreSQL, MySQL)",
    load: async () => (await import("./copy.js")).registerCopy,
  },
  {
    name: "init",
    summary: "create a new skill folder from a template",
    load: async () => (await import("./init.js")).registerInit,
  },
  {
    name: "pack",
    summary: "pack a skill package workspace into a deterministic zip",
    load: async () => (await import("./pack.js")).registerPack,
  },
  {
    name: "inspect",
    summary: "show a package's versionId, files, skills and exclusions",
    load: async () => (await import("./inspect.js")).registerInspect,
  },
  {
    name: "unpack",
    summary: "safely unpack a package archive (zip, tar, tar.gz, .skill)",
    load: async () => (await import("./unpack.js")).registerUnpack,
  },
  {
    name: "export",
    summary: "export a skill directory as a .skill file",
    load: async () => (await import("./export.js")).registerExport,
  },
  {
    name: "import",
    summary: "import a .skill file or zipped skill into a skills directory",
    load: async () => (await import("./import.js")).registerImport,
  },
  {
    name: "publish",
    summary: "publish a skill folder or archive to a registry",
    load: async () => (await import("./publish.js")).registerPublish,
  },
  {
    name: "login",
    summary: "store a registry token for publish (mode 0600)",
    load: async () => (await import("./login.js")).registerLogin,
  },
  { name: "logout", summary: "forget a registry token", load: async () => (await import("./login.js")).registerLogout },
  {
    name: "registry",
    summary: "serve a skill registry (SQLite or PostgreSQL) and create its tokens",
    load: async () => (await import("./registry.js")).registerRegistry,
  },
  {
    name: "deploy",
    summary: "deploy packages into a workspace and run their entrypoints",
    load: async () => (await import("./deploy.js")).registerDeploy,
  },
  {
    name: "exec",
    summary: "run a command in a workspace sandbox, print the observation",
    load: async () => (await import("./exec.js")).registerExec,
  },
  {
    name: "runner",
    summary: "run jobs from a NATS JetStream queue (a runner of the pool); runner status",
    load: async () => (await import("./runner.js")).registerRunner,
  },
  {
    name: "chat",
    summary: "talk to a model that has your skills (OpenAI-compatible or Anthropic)",
    load: async () => (await import("./chat.js")).registerChat,
  },
  {
    name: "tools",
    summary: "print the tool definitions a model gets for your skills",
    load: async () => (await import("./tools.js")).registerTools,
  },
  {
    name: "plugin",
    summary: "create, build, check, pack and run system-tool plugins",
    load: async () => (await import("./plugin.js")).registerPlugin,
  },
  {
    name: "completion",
    summary: "print a shell completion script (bash, zsh or fish)",
    load: async () => (await import("./completion.js")).completionCommand(commands),
  },
  {
    name: "demo",
    summary: "run the main job on the bundled examples (npm start)",
    load: async () => (await import("./demo.js")).registerDemo,
  },
];
