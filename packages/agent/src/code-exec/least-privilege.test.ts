// run_skill_script under intersection(operator, the skill's declaration) (issue 26): real bubblewrap, real curl, an
// HTTP server on 127.0.0.1. On unsafe code (no proxy, or one that forwards anything) the undeclared call would land.
import http from "node:http";
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Skill } from "@skillport/core";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";
import { resultText, SkillBox } from "../index.js";

const run = findBubblewrap() !== undefined && existsSync("/usr/bin/curl") ? describe : describe.skip;
let server: http.Server;
let port = 0;
const paths: string[] = [];
let root = "";
beforeAll(async () => {
  root = await makeTempDir("skillport-agent-lp-");
  server = http.createServer((req, res) => {
    paths.push(req.url ?? "");
    res.end("pong\n");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await removeDir(root);
});

run("run_skill_script under the skill's declaration", () => {
  it("reaches the declared destination only; the widening part of the declaration is narrowed", async () => {
    const box = new SkillBox();
    await box.registerSkill(
      Skill.builder()
        .name("caller")
        .description("Calls the service.")
        .skillContent("# Caller\n")
        .putMetadata("metadata", {
          "skillport.network-private": `localhost:${port}`,
          "skillport.network": "api.widening.example",
        })
        .addResource(
          "scripts/call.sh",
          `curl -sS http://localhost:${port}/declared; curl -sS http://127.0.0.1:${port}/raw\n`,
        )
        .build(),
    );
    box
      .codeExecution()
      .workDir(path.join(root, "work"))
      .withSkillScripts()
      .sandbox({ kind: "bubblewrap", leastPrivilege: { network: [{ host: "localhost", port, private: true }] } })
      .enable();
    try {
      await box.callTool("load_skill_through_path", { skillId: "caller_custom", path: "SKILL.md" });
      const result = await box.callTool("run_skill_script", { skillId: "caller_custom", script: "call.sh" });
      const text = resultText(result);
      expect(text).toContain("pong");
      expect(text).toContain("raw IP address not declared");
      expect(paths).toEqual(["/declared"]);
      const details = result.details as { warnings: string[]; egress: { host: string; allowed: boolean }[] };
      expect(details.egress.map((e) => [e.host, e.allowed])).toEqual([
        ["localhost", true],
        ["127.0.0.1", false],
      ]);
      expect(details.warnings).toContainEqual(
        expect.stringContaining("declaration narrowed: network api.widening.example"),
      );
    } finally {
      await box.close();
    }
  });
});
