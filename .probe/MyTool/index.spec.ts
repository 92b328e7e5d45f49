import { describe, expect, it } from 'vitest';
import { createTestContext } from '@skillport/plugin';
import tool from './index';

describe('MyTool', () => {
  it('has a complete bilingual manifest', () => {
    const manifest = tool.getUserToolManifest();
    expect(manifest.pluginId).toBe('MyTool');
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.name.en).toBeTruthy();
    expect(manifest.name['zh-CN']).toBeTruthy();
    expect(manifest.description['zh-CN']).toBeTruthy();
  });

  it('counts words, characters and lines', async () => {
    const { ctx } = createTestContext();
    const handler = tool.getToolHandler();
    if (!handler) throw new Error('no tool handler');
    const input = handler.inputSchema.parse({ text: 'hello world\nagain' });
    const output = await handler.handler(input, ctx);
    expect(handler.outputSchema.parse(output)).toEqual({ words: 3, characters: 17, lines: 2 });
  });
});
