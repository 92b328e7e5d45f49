/** The single-tool template: a text statistics tool that needs no secrets and no host calls. */

export const TOOL_INDEX = `import {
  createToolHandler,
  defineTool,
  type InputSchemaMetaType,
  type OutputSchemaMetaType
} from '@skillport/plugin';
import z from 'zod';

const handler = createToolHandler({
  inputSchema: z.object({
    text: z.string().min(1).meta({
      title: 'Text',
      description: 'The text to measure',
      toolDescription: 'The text whose words, characters and lines to count',
      isToolParam: true
    } satisfies InputSchemaMetaType)
  }),
  outputSchema: z.object({
    words: z.number().int().meta({ title: 'Words' } satisfies OutputSchemaMetaType),
    characters: z.number().int().meta({ title: 'Characters' } satisfies OutputSchemaMetaType),
    lines: z.number().int().meta({ title: 'Lines' } satisfies OutputSchemaMetaType)
  }),
  handler: async (input) => {
    const words = input.text.trim().split(/\\s+/).filter(Boolean).length;
    return {
      words,
      characters: [...input.text].length,
      lines: input.text.split(/\\r?\\n/).length
    };
  }
});

export default defineTool({
  manifest: {
    pluginId: '{{pluginId}}',
    version: '0.1.0',
    name: { en: '{{title}}', 'zh-CN': '{{title}}' },
    description: {
      en: 'Count the words, characters and lines of a text',
      'zh-CN': '统计文本的词数、字符数和行数'
    },
    versionDescription: { en: 'Initial version', 'zh-CN': '初始版本' },
    tags: ['tools'],
    permission: []
  },
  handler
});
`;

export const TOOL_TEST = `import { describe, expect, it } from 'vitest';
import { createTestContext } from '@skillport/plugin';
import tool from './index';

describe('{{pluginId}}', () => {
  it('has a complete bilingual manifest', () => {
    const manifest = tool.getUserToolManifest();
    expect(manifest.pluginId).toBe('{{pluginId}}');
    expect(manifest.version).toMatch(/^\\d+\\.\\d+\\.\\d+$/);
    expect(manifest.name.en).toBeTruthy();
    expect(manifest.name['zh-CN']).toBeTruthy();
    expect(manifest.description['zh-CN']).toBeTruthy();
  });

  it('counts words, characters and lines', async () => {
    const { ctx } = createTestContext();
    const handler = tool.getToolHandler();
    if (!handler) throw new Error('no tool handler');
    const input = handler.inputSchema.parse({ text: 'hello world\\nagain' });
    const output = await handler.handler(input, ctx);
    expect(handler.outputSchema.parse(output)).toEqual({ words: 3, characters: 17, lines: 2 });
  });
});
`;

export const TOOL_README = `# {{title}}

Counts the words, characters and lines of a text.

## Inputs

| Field | Type | Filled by the model | Description |
| --- | --- | --- | --- |
| \`text\` | string (required) | yes | The text to measure |

## Outputs

| Field | Type | Description |
| --- | --- | --- |
| \`words\` | integer | Whitespace-separated words |
| \`characters\` | integer | Unicode characters |
| \`lines\` | integer | Lines (split on newlines) |

## Secrets

None.

## Usage

\`\`\`sh
npm test            # unit tests
npm run build       # dist/index.js + dist/manifest.json
npm run check       # the publishing checklist
npm run pack        # out/{{pluginId}}-0.1.0.pkg
\`\`\`
`;
