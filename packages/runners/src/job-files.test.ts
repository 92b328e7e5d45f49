// The job protocol's `files` (decision 0440): what a job may carry for its run, checked on arrival like the rest.
import { describe, expect, it } from "vitest";
import { jobSpecSchema, MAX_JOB_FILE_BYTES } from "@skillport/runners";

const job = (files: unknown) =>
  jobSpecSchema.safeParse({ id: "j1", tenant: "t", run: { kind: "command", command: "true" }, submittedAt: 1, files });

describe("job files", () => {
  it("takes relative paths with their bytes; defaults to none", () => {
    const parsed = job([{ path: "scripts/a.py", base64: Buffer.from("print(1)").toString("base64") }]);
    expect(parsed.success && parsed.data.files).toEqual([
      { path: "scripts/a.py", base64: "cHJpbnQoMSk=", executable: false },
    ]);
    expect(job(undefined).success && job(undefined).data?.files).toEqual([]);
  });

  it("refuses paths that leave the folder, absolute paths and more bytes than a message holds", () => {
    for (const path of ["../x.py", "/etc/passwd", "a//b", "scripts/./a", "", "a/../../b"])
      expect(job([{ path, base64: "" }]).success, path).toBe(false);
    expect(job([{ path: "a", base64: "not base64!" }]).success).toBe(false);
    const big = Buffer.alloc(MAX_JOB_FILE_BYTES + 3).toString("base64");
    expect(job([{ path: "big.bin", base64: big }]).success).toBe(false);
    const fits = Buffer.alloc(MAX_JOB_FILE_BYTES).toString("base64");
    expect(job([{ path: "fits.bin", base64: fits }]).success).toBe(true);
  });
});
