import { z } from "zod";
import { ErrorSchema, expandPath, SCOPE_PARAM, type RouteDef, type RouteModule } from "./route.js";

type Json = Record<string, unknown>;

/** OpenAPI 3.1 from the route definitions: the same zod schemas the server checks requests with. */
export function openApiDocument(modules: readonly RouteModule[]): Json {
  const paths: Record<string, Json> = {};
  for (const module of modules) {
    for (const def of module.routes) {
      if (def.document === false) continue;
      for (const path of expandPath(def.path)) {
        const item = (paths[path] ??= {});
        item[def.method] = operation(def, path, module.errors ?? "json");
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Skillport registry",
      version: "1",
      description: "Publish, version, search and fetch Agent Skills. Tokens: `Authorization: Bearer skp_…`.",
    },
    components: {
      securitySchemes: {
        token: { type: "http", scheme: "bearer", description: "a registry token (scopes read, publish, admin)" },
      },
      schemas: { Error: schemaOf(ErrorSchema) },
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

function operation(def: RouteDef<unknown, unknown, unknown>, path: string, errors: "json" | "text"): Json {
  const parameters: Json[] = [];
  for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string)) {
    const shape = objectShape(def.params);
    const schema =
      name === SCOPE_PARAM
        ? { type: "string", pattern: "^@[a-z0-9-]+$", description: "the namespace, with its @" }
        : shape[name]
          ? schemaOf(shape[name])
          : { type: "string" };
    parameters.push({ name, in: "path", required: true, schema });
  }
  for (const [name, field] of Object.entries(objectShape(def.query))) {
    parameters.push({ name, in: "query", required: !field.safeParse(undefined).success, schema: schemaOf(field) });
  }
  const op: Json = {
    operationId: `${def.method}${path.replace(/[{}@.]/g, "").replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`,
    summary: def.summary,
    tags: [def.tag],
    parameters,
    responses: {
      ...Object.fromEntries(
        Object.entries(def.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            content: {
              [r.contentType ?? "application/json"]: {
                schema: r.schema ? schemaOf(r.schema) : { type: "string", format: "binary" },
              },
            },
          },
        ]),
      ),
      default:
        errors === "text"
          ? { description: "an error: its message as text", content: { "text/plain": { schema: { type: "string" } } } }
          : {
              description: "an error",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
            },
    },
  };
  if (def.rawBody !== undefined)
    op.requestBody = { required: true, content: { [def.rawBody]: { schema: { type: "string", format: "binary" } } } };
  if (def.scope !== undefined) op.security = def.scope === "read" ? [{}, { token: [] }] : [{ token: [] }];
  if (def.body) {
    const body = schemaOf(def.body);
    op.requestBody =
      def.multipartPayload !== undefined
        ? {
            required: true,
            content: {
              "application/json": { schema: body },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    [def.multipartPayload.payload]: { type: "string", description: "the JSON body, as text" },
                    [def.multipartPayload.files]: { type: "array", items: { type: "string", format: "binary" } },
                  },
                  required: [def.multipartPayload.payload],
                },
              },
            },
          }
        : def.multipartFile === undefined
          ? { required: true, content: { "application/json": { schema: body } } }
          : {
              required: true,
              content: {
                "multipart/form-data": {
                  schema: {
                    ...body,
                    properties: {
                      ...(body.properties as Json),
                      [def.multipartFile]: { type: "string", format: "binary" },
                    },
                    required: [def.multipartFile],
                  },
                },
              },
            };
  }
  return op;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

function schemaOf(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  void _drop;
  return rest;
}
