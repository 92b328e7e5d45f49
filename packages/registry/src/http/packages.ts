import { z } from "zod";
import { RegistryError } from "../errors.js";
import { route, type RouteModule } from "./route.js";
import { RunPackage } from "./schemas.js";

const PackageAnswer = z.object({ created: z.boolean(), package: RunPackage });

/** Whole package archives for the runner pool (decision 0378): put by a publisher, fetched by runners. */
export const packagesModule: RouteModule = {
  name: "packages",
  routes: [
    route({
      method: "post",
      path: "/api/v1/packages",
      summary: "Store a package archive for runners (multipart: the zip in `archive`); addressed by its versionId",
      tag: "packages",
      scope: "publish",
      multipartFile: "archive",
      body: z.object({}),
      maxBodyBytes: (store) => store.limits.maxUploadBytes + 256 * 1024,
      responses: {
        201: { description: "stored", schema: PackageAnswer },
        200: { description: "this versionId was already stored: nothing changed", schema: PackageAnswer },
      },
      handler: async ({ c, store, actor }) => {
        const file = (await c.req.formData()).get("archive");
        if (!(file instanceof Blob))
          throw new RegistryError("REGISTRY_BAD_REQUEST", "the multipart field `archive` (the package zip) is missing");
        const result = await store.putRunPackage(new Uint8Array(await file.arrayBuffer()), actor);
        return Response.json(result, { status: result.created ? 201 : 200 });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/packages/{versionId}",
      summary: "A package archive by versionId (the bytes; Digest and ETag carry their sha256)",
      tag: "packages",
      scope: "read",
      params: z.object({ versionId: z.string().max(64) }),
      responses: { 200: { description: "the archive", contentType: "application/zip" } },
      handler: async ({ store, params }) => {
        const { bytes, package: pkg } = await store.getRunPackage(params.versionId);
        return new Response(bytes, {
          headers: {
            "content-type": "application/zip",
            etag: `"${pkg.digest.replace(":", "-")}"`,
            "cache-control": "private, max-age=31536000, immutable",
            "x-content-digest": pkg.digest,
          },
        });
      },
    }),
  ],
};
