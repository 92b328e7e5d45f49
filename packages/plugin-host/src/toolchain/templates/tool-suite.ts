/** The tool-suite template: two hashing tools sharing one secret schema; `sign` has its own logo. */

export const SUITE_INDEX = `import { createHash, createHmac } from 'node:crypto';
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
    pluginId: '{{pluginId}}',
    version: '0.1.0',
    name: { en: '{{title}}', 'zh-CN': '{{title}}' },
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
`;

export const SUITE_TEST = `import { describe, expect, it } from 'vitest';
import { createTestContext } from '@skillport/plugin';
import suite from './index';

const child = (id: string) => {
  const handler = suite.getToolHandler(id);
  if (!handler) throw new Error('no child ' + id);
  return { handler };
};

describe('{{pluginId}}', () => {
  it('has a complete bilingual manifest and two tools', () => {
    expect(suite.getUserToolManifest().pluginId).toBe('{{pluginId}}');
    expect(suite.getUserToolManifest().name['zh-CN']).toBeTruthy();
    expect(suite.getChildManifests().map((c) => c.id)).toEqual(['digest', 'sign']);
  });

  it('digest hashes the text', async () => {
    const { ctx } = createTestContext({ secrets: { signingKey: 'k'.repeat(16) } });
    const output = await child('digest').handler.handler({ text: 'abc' }, ctx);
    expect(output).toEqual({ sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' });
  });

  it('sign uses the shared secret and reports progress', async () => {
    const { ctx, events } = createTestContext({ secrets: { signingKey: 'k'.repeat(16) } });
    const output = await child('sign').handler.handler({ text: 'abc' }, ctx);
    expect(output).toHaveProperty('signature');
    expect(events).toEqual([{ type: 'answer', content: 'Signing with the configured key' }]);
  });
});
`;

export const SUITE_README = `# {{title}}

Two tools for hashing and signing text.

## Tools

| Id | Input | Output | Description |
| --- | --- | --- | --- |
| \`digest\` | \`text\` (string, model-filled) | \`sha256\` (hex string) | SHA-256 of the text |
| \`sign\` | \`text\` (string, model-filled) | \`signature\` (hex string) | HMAC-SHA256 of the text with the signing key |

## Secrets

| Field | Stored encrypted | Description |
| --- | --- | --- |
| \`signingKey\` | yes | HMAC key, at least 16 characters |

## Usage

\`\`\`sh
npm test            # unit tests
npm run build       # dist/index.js + dist/manifest.json (+ logo.svg, sign.logo.svg)
npm run check       # the publishing checklist
npm run pack        # out/{{pluginId}}-0.1.0.pkg
\`\`\`
`;
