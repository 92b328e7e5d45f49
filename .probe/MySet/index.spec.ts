import { describe, expect, it } from 'vitest';
import { createTestContext } from '@skillport/plugin';
import suite from './index';

const child = (id: string) => {
  const handler = suite.getToolHandler(id);
  if (!handler) throw new Error('no child ' + id);
  return { handler };
};

describe('MySet', () => {
  it('has a complete bilingual manifest and two tools', () => {
    expect(suite.getUserToolManifest().pluginId).toBe('MySet');
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
