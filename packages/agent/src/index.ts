// @skillport/agent: give a model skills (docs/agent.md).
export { AgentError, type AgentErrorCode } from "./errors.js";
export {
  defineTool,
  describeIssues,
  errorResult,
  jsonSchemaOf,
  resultText,
  textResult,
  TOOL_NAME_PATTERN,
  type DefineToolOptions,
  type JsonSchema,
  type Tool,
  type ToolContent,
  type ToolContext,
  type ToolResult,
} from "./tool.js";
export {
  SkillBox,
  SkillBoxSession,
  DEFAULT_ENUM_LIMIT,
  DEFAULT_MAX_CONTENT_CHARS,
  DEFAULT_MAX_LISTED_PATHS,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  type SkillBoxOptions,
} from "./skill-box.js";
export { SkillRegistration } from "./registration.js";
export type { BoxSkill, RegisterResult, SkillReader, SkillVersion } from "./box-skill.js";
export type { CatalogBudget } from "./box-prompt.js";
export { DEFAULT_SESSION, skillDirName, skillIdOf } from "./skill-id.js";
export { LOAD_SKILL_TOOL } from "./load-tool.js";
export { SEARCH_SKILLS_TOOL } from "./search-tool.js";
export {
  CodeExecution,
  CodeExecutionBuilder,
  DEFAULT_INCLUDE_EXTENSIONS,
  DEFAULT_INCLUDE_FOLDERS,
  DEFAULT_SHELL_TIMEOUT_SECONDS,
  type CodeExecutionSettings,
  type SandboxChoice,
} from "./code-exec/builder.js";
export { SHELL_TOOL, type ShellApprovalRequest, type ShellOptions } from "./code-exec/shell-tool.js";
export { SKILL_SCRIPT_TOOL } from "./code-exec/script-tool.js";
export type {
  RemoteCodeRunner,
  RemoteFile,
  RemoteRun,
  RemoteRunRequest,
  RemoteRunResult,
} from "@skillport/core/internal";
export type { WorkSpace } from "./code-exec/work-space.js";
export {
  checkShellCommand,
  DEFAULT_ALLOWED_COMMANDS,
  type ShellPolicy,
  type ShellVerdict,
} from "./code-exec/shell-policy.js";
export {
  parseShell,
  ShellSyntaxError,
  type ShellCommand,
  type ShellParse,
  type ShellParseLimits,
  type ShellRedirect,
  type ShellWord,
} from "./code-exec/shell-parse.js";
export {
  callMcpTool,
  invalidArguments,
  modelSchema,
  parseArguments,
  runAnthropicToolUses,
  runOpenAIChatToolCalls,
  runOpenAIResponsesCalls,
  toAnthropicToolResult,
  toAnthropicTools,
  toMcpCallToolResult,
  toMcpTools,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
  toOpenAIResponsesOutput,
  toOpenAIResponsesTools,
  type AnthropicTool,
  type AnthropicToolResult,
  type AnthropicToolResultContent,
  type AnthropicToolUse,
  type McpCallToolResult,
  type McpContent,
  type McpTool,
  type OpenAIChatTool,
  type OpenAIChatToolCall,
  type OpenAIChatToolMessage,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesTool,
  type ToolCaller,
} from "./adapters/index.js";
export { createOpenAIChatModel, DEFAULT_OPENAI_BASE_URL, type OpenAIChatModelOptions } from "./model/openai-chat.js";
export {
  createAnthropicModel,
  DEFAULT_ANTHROPIC_BASE_URL,
  toAnthropicMessages,
  type AnthropicModelOptions,
} from "./model/anthropic.js";
export { createModel, type ModelSpecOptions } from "./model/parse.js";
export { readSse, retryAfterMs, type HttpOptions, type RetryInfo, type SseEvent } from "./model/http.js";
export type { AgentMessage, ModelClient, ModelRequest, ModelResponse, ToolCallRequest, Usage } from "./model/types.js";
export { runAgent, type AgentEvent, type AgentRunResult, type RunAgentOptions } from "./loop.js";
export { pluginTools, type PluginToolLike, type PluginToolSource } from "./plugin-tools.js";
