import { createHash, createHmac } from 'node:crypto';
import {
  createToolHandler,
  defineToolSet,
  type InputSchemaMetaType,
  type OutputSchemaMetaType,
  type SecretSchemaMetaType
} from '@skillport/plugin';
import z from 'zod';

// One secret schema for the whole set: the host asks for it once and passes it to every tool.
const secretSchema = z.object({
  signingKey: z.string().min(16).meta({
    title: 'Signing key',
    description: 'HMAC key used by the sign tool (at least 16 characters)',
    isSecret: true
  } satisfies SecretSchemaMetaType)
});

const text = z.string().min(1).meta({
  title: 'Text',
  toolDescription: 'The exact text to process',
  isToolParam: true
} satisfies InputSchemaMetaType);

const digestHandler = createToolHandler({
  inputSchema: z.object({ text }),
  outputSchema: z.object({
    sha256: z.string().meta({ title: 'SHA-256 (hex)' } satisfies OutputSchemaMetaType)
  }),
  secretSchema,
  handler: async (input) => ({
    sha256: createHash('sha256').update(input.text).digest('hex')
  })
});

const signHandler = createToolHandler({
  inputSchema: z.object({ text }),
  outputSchema: z.object({
    signature: z.string().meta({ title: 'HMAC-SHA256 (hex)' } satisfies OutputSchemaMetaType)
  }),
  secretSchema,
  handler: async (input, ctx) => {
    ctx.streamResponse({ type: 'answer', content: 'Signing with the configured key' });
    return {
      signature: createHmac('sha256', ctx.secrets.signingKey).update(input.text).digest('hex')
    };
  }
});

export default defineToolSet({
  secretSchema,
  manifest: {
    pluginId: 'MySet',
    version: '0.1.0',
    name: { en: 'My Set', 'zh-CN': 'My Set' },
    description: { en: 'Hash and sign text', 'zh-CN': '对文本计算哈希和签名' },
    versionDescription: { en: 'Initial version', 'zh-CN': '初始版本' },
    tags: ['tools'],
    permission: []
  },
  children: [
    {
      id: 'digest',
      name: { en: 'Digest', 'zh-CN': '摘要' },
      description: { en: 'SHA-256 of a text', 'zh-CN': '计算文本的 SHA-256' },
      toolDescription: 'Compute the SHA-256 hex digest of a text',
      handler: digestHandler
    },
    {
      id: 'sign',
      name: { en: 'Sign', 'zh-CN': '签名' },
      description: { en: 'HMAC-SHA256 of a text', 'zh-CN': '计算文本的 HMAC-SHA256 签名' },
      toolDescription: 'Sign a text with the configured key (HMAC-SHA256, hex)',
      handler: signHandler
    }
  ]
});
