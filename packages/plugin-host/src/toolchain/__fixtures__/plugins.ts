import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n';

/** The seed's two templates, read from the SDK package's copies (import path `@skillport/plugin`). */
export const seedTool = await readFile(new URL("../../../../plugin/test/seed-tool.ts", import.meta.url), "utf8");
export const seedToolSet = await readFile(new URL("../../../../plugin/test/seed-tool-set.ts", import.meta.url), "utf8");
/** The same templates exactly as the seed prints them, importing the FastGPT SDK name. */
export const fastgptTool = seedTool.replace("from '@skillport/plugin'", "from '@fastgpt-plugin/sdk-factory'");
export const fastgptToolSet = seedToolSet.replace("from '@skillport/plugin'", "from '@fastgpt-plugin/sdk-factory'");

/** Creates temp plugin directories and removes them all in `cleanup`. */
export function tempPlugins() {
  const dirs: string[] = [];
  return {
    async make(files: Record<string, string | Uint8Array>): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "skillport-plugin-"));
      dirs.push(dir);
      // A plugin folder as users have it: readable by others (mkdtemp's is private), as the sandboxed loader needs.
      await chmod(dir, 0o755);
      await writeFiles(dir, files);
      return dir;
    },
    async cleanup(): Promise<void> {
      await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

export async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
}

/** A minimal valid single tool whose handler body and manifest extras can be swapped in. */
export function toolSource(options: { body?: string; manifest?: string; input?: string; imports?: string } = {}): string {
  return `import { createToolHandler, defineTool } from '@skillport/plugin';
import z from 'zod';
${options.imports ?? ""}
export default defineTool({
  manifest: {
    pluginId: 'probe',
    version: '1.0.0',
    name: { en: 'Probe', 'zh-CN': '探针' },
    description: { en: 'Probe tool', 'zh-CN': '探针工具' },
    ${options.manifest ?? "permission: []"}
  },
  handler: createToolHandler({
    inputSchema: z.object({ ${options.input ?? "q: z.string().meta({ title: 'Q', isToolParam: true })"} }),
    outputSchema: z.object({ ok: z.boolean().meta({ title: 'OK' }) }),
    handler: async (input, ctx) => {
      ${options.body ?? ""}
      return { ok: true };
    }
  })
});
`;
}

/** A tool set with the given children; each child has a valid handler unless `handler` is given. */
export function toolSetSource(children: { id: string; handler?: string }[], extra: { imports?: string } = {}): string {
  const handler = `createToolHandler({
      inputSchema: z.object({ q: z.string().meta({ title: 'Q', isToolParam: true }) }),
      outputSchema: z.object({ ok: z.boolean().meta({ title: 'OK' }) }),
      secretSchema,
      handler: async () => ({ ok: true })
    })`;
  return `import { createToolHandler, defineToolSet } from '@skillport/plugin';
import z from 'zod';
${extra.imports ?? ""}
const secretSchema = z.object({ key: z.string().meta({ title: 'Key', isSecret: true }) });
export default defineToolSet({
  secretSchema,
  manifest: {
    pluginId: 'probe-set',
    version: '1.0.0',
    name: { en: 'Probe set', 'zh-CN': '探针集' },
    description: { en: 'Probe tools', 'zh-CN': '探针工具集' },
    permission: []
  },
  children: [
${children.map((c) => `    { id: '${c.id}', name: { en: '${c.id}', 'zh-CN': '${c.id}' }, description: { en: '${c.id}', 'zh-CN': '${c.id}' }, handler: ${c.handler ?? handler} }`).join(",\n")}
  ]
});
`;
}
