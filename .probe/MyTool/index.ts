import {
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
    const words = input.text.trim().split(/\s+/).filter(Boolean).length;
    return {
      words,
      characters: [...input.text].length,
      lines: input.text.split(/\r?\n/).length
    };
  }
});

export default defineTool({
  manifest: {
    pluginId: 'MyTool',
    version: '0.1.0',
    name: { en: 'My Tool', 'zh-CN': 'My Tool' },
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
