// A registry server in its own process, for the crash and multi-instance tests (run from the built package).
// argv: <database address> <blob folder | postgres> [pause-marker]: with a marker, every upload stops after its blob is
// written (before the version is committed) and the upload id is written to the marker, so a test can kill -9 it there.
import { writeFileSync } from "node:fs";
import { FileBlobStore, PostgresBlobStore, serveRegistry } from "@skillport/registry";

const [database, blobFolder, marker] = process.argv.slice(2);

async function pause(upload) {
  if (marker) {
    writeFileSync(marker, upload);
    await new Promise(() => {});
  }
}

class PausingBlobStore extends FileBlobStore {
  async put(digest, bytes, upload) {
    await super.put(digest, bytes, upload);
    await pause(upload);
  }
}

class PausingPostgresBlobStore extends PostgresBlobStore {
  async put(digest, bytes, upload) {
    await super.put(digest, bytes, upload);
    await pause(upload);
  }
}

const registry = await serveRegistry({
  database,
  blobs:
    blobFolder === "postgres"
      ? async (db) => {
          const blobs = new PausingPostgresBlobStore(db);
          await blobs.prepare();
          return blobs;
        }
      : new PausingBlobStore(blobFolder),
  rateLimit: { requests: 1e6, publishes: 1e6 },
});
process.stdout.write(`${JSON.stringify({ url: registry.url })}\n`);
process.on("SIGTERM", () => void registry.close().then(() => process.exit(0)));
