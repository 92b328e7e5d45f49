import path from "node:path";
import type { BlobDirPackageStore, RegistryPackageStore } from "@skillport/runners";
import { readCredentials, normaliseRegistryUrl } from "./registry-client.js";

interface PackageStores {
  BlobDirPackageStore: typeof BlobDirPackageStore;
  RegistryPackageStore: typeof RegistryPackageStore;
}

/**
 * `--packages <dir|url>` of `runner` and `exec --queue`: a folder of `<versionId>.zip`, or a registry's package
 * archives (decision 0378) with the token `skillport login` stored for it or `$SKILLPORT_REGISTRY_TOKEN`.
 */
export async function openPackageStore(
  stores: PackageStores,
  value: string,
  cwd: string,
): Promise<BlobDirPackageStore | RegistryPackageStore> {
  if (!/^https?:\/\//i.test(value)) return new stores.BlobDirPackageStore(path.resolve(cwd, value));
  const url = normaliseRegistryUrl(value);
  const token = process.env.SKILLPORT_REGISTRY_TOKEN || (await readCredentials()).registries[url]?.token;
  return new stores.RegistryPackageStore(url, token ? { token } : {});
}
