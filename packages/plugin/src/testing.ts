import type {
  HostInvoke,
  InvokeResult,
  InvokeCapability,
  StreamResponseEvent,
  SystemVar,
  ToolHandlerContext,
} from "./context.js";
import { INVOKE_CAPABILITIES } from "./context.js";

export interface TestContextOptions<Secrets> {
  secrets?: Secrets;
  systemVar?: Partial<SystemVar>;
  /** Stand-ins for reverse calls; the others resolve to a `NotAvailable` failure. */
  invoke?: Partial<HostInvoke>;
}

export interface TestContext<Secrets> {
  ctx: ToolHandlerContext<Secrets>;
  /** Everything the handler sent with `ctx.streamResponse`, in order. */
  events: StreamResponseEvent[];
}

const notAvailable = (capability: InvokeCapability) => async (): Promise<InvokeResult<never>> => [
  null,
  {
    reason: {
      en: `ctx.invoke.${capability} is not provided in this test context`,
      "zh-CN": `测试上下文未提供 ctx.invoke.${capability}`,
    },
    error: "NotAvailable",
  },
];

/** A context for calling a handler directly in a plugin's own unit tests. */
export function createTestContext<Secrets = undefined>(
  options: TestContextOptions<Secrets> = {},
): TestContext<Secrets> {
  const events: StreamResponseEvent[] = [];
  const invoke = Object.fromEntries(
    INVOKE_CAPABILITIES.map((capability) => [capability, options.invoke?.[capability] ?? notAvailable(capability)]),
  ) as unknown as HostInvoke;
  const systemVar: SystemVar = {
    app: { id: "test-app", name: "Test App" },
    chat: { chatId: "test-chat" },
    invokeToken: "test-token",
    time: "2000-01-01T00:00:00.000Z",
    ...options.systemVar,
  };
  const ctx: ToolHandlerContext<Secrets> = {
    systemVar,
    secrets: options.secrets as Secrets,
    invoke,
    streamResponse: (event) => {
      events.push({ ...event });
    },
  };
  return { ctx, events };
}
