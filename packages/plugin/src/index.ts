/**
 * @skillport/plugin — the system-tool plugin SDK (FastGPT `@fastgpt-plugin/sdk-factory` compatible).
 *
 * CONTRACT (shared with @skillport/plugin-host; change only together):
 *
 * defineTool({manifest, handler}) / defineToolSet({manifest, secretSchema?, children}) return a frozen
 *   PluginDefinition = {
 *     [Symbol.for("skillport.plugin.definition")]: true,   // isPluginDefinition(v) checks this + kind + children
 *     kind: "tool" | "toolSet",
 *     manifest,                                           // the author's manifest, NOT validated (parsePluginManifest)
 *     secretSchema: z.ZodObject | undefined,              // single tool: its handler's; tool set: the top-level one
 *     children: [{id, name, description, icon?, toolDescription?, handler}],  // single tool: one child, id "tool"
 *     handler?,                                           // kind "tool" only (same as children[0].handler)
 *     getUserToolManifest(), getToolHandler(id = "tool"), getChildManifests(), getSecretSchema(),
 *     setSecretSchema(schema), registerTool(handler, id?, childManifest?)   // FastGPT's ToolFactory methods
 *   }                                                     // (frozen; registerTool/setSecretSchema change the getters)
 *   handler = createToolHandler({inputSchema, outputSchema, secretSchema?, handler(input, ctx)}) (identity).
 *   The host parses input with inputSchema, secrets with the definition's secretSchema, the return with outputSchema.
 *
 * ctx = {systemVar, secrets, invoke: {userInfo(), teamInfo(), model(req), dataset(req), uploadFile(req), getWecomCorpToken()},
 *        streamResponse({type: "answer" | "fastAnswer", content})}
 *   every invoke call resolves to [result, null] | [null, InvokeFailure] and never throws; INVOKE_PERMISSIONS maps
 *   each call to the manifest permission it needs (permissionDenied(capability) builds the failure).
 *
 * dist/manifest.json (BuiltManifestSchema / BuiltManifest) = the user manifest fields +
 *   {type: "tool", permission: [] (always written; absent in FastGPT-built manifests = none), icon: "logo.<ext>", toolDescription (explicit, else zh-CN
 *   description, else en), secretSchema?: JSON Schema} + EITHER {inputSchema, outputSchema} (single tool) OR
 *   {children: [{id, name, description, icon, toolDescription, inputSchema, outputSchema}]} (tool set).
 *   JSON Schemas come from z.toJSONSchema (input schemas with io "input") and keep .meta() keys.
 *   dist/ also holds index.js (one ESM bundle; imports `@skillport/plugin` and `zod` as externals the host
 *   provides), the logo files named by `icon`, README.md and assets/.
 *
 * describePlugin(def) turns a definition into plain JSON (JSON Schemas, raw manifest, problems); `plugin build` runs
 * it in a child process on the bundle's default export (see @skillport/plugin-host loadPluginDescription).
 */
export {
  PLUGIN_TAGS,
  PLUGIN_PERMISSIONS,
  PLUGIN_MANIFEST_KEYS,
  PLUGIN_ID_PATTERN,
  PLUGIN_ID_MAX_LENGTH,
  PLUGIN_VERSION_MAX_LENGTH,
  SEMVER_PATTERN,
  I18nStringSchema,
  PluginPermissionSchema,
  PluginTagSchema,
  PluginManifestSchema,
  parsePluginManifest,
  formatIssuePath,
  toManifestIssues,
} from "./manifest.js";
export type {
  PluginTag,
  PluginPermission,
  I18nString,
  PluginManifest,
  ManifestIssue,
  ManifestParseResult,
} from "./manifest.js";
export type { InputSchemaMetaType, OutputSchemaMetaType, SecretSchemaMetaType } from "./meta.js";
export { INVOKE_PERMISSIONS, INVOKE_CAPABILITIES, invokeSuccess, invokeFailure, permissionDenied } from "./context.js";
export type {
  SystemVar,
  StreamResponseEvent,
  InvokeFailure,
  InvokeResult,
  UserInfo,
  TeamInfo,
  ChatMessage,
  ModelChatRequest,
  ModelChatResult,
  DatasetSearchRequest,
  DatasetSearchItem,
  DatasetSearchResult,
  UploadFileRequest,
  UploadFileResult,
  WecomCorpToken,
  HostInvoke,
  InvokeCapability,
  ToolHandlerContext,
} from "./context.js";
export {
  createToolHandler,
  defineTool,
  defineToolSet,
  isPluginDefinition,
  PLUGIN_DEFINITION,
  SINGLE_TOOL_CHILD_ID,
} from "./define.js";
export type {
  ObjectSchema,
  SecretsOf,
  ToolHandler,
  ToolChild,
  ToolChildManifest,
  DefinitionMethods,
  ToolDefinition,
  ToolSetDefinition,
  PluginDefinition,
  DefineToolOptions,
  DefineToolSetOptions,
  ToolSetChildOptions,
} from "./define.js";
export {
  BuiltManifestSchema,
  BuiltChildSchema,
  BUILT_MANIFEST_FILE,
  BUILT_BUNDLE_FILE,
  inferToolParams,
} from "./built-manifest.js";
export type { BuiltManifest, BuiltChild, JsonSchema } from "./built-manifest.js";
export { describePlugin, toJsonSchema } from "./describe.js";
export type { PluginDescription, ChildDescription } from "./describe.js";
export { createTestContext } from "./testing.js";
export type { TestContext, TestContextOptions } from "./testing.js";
