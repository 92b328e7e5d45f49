// `codeExecution().remote(runner)` (decision 0440): what the box hands a remote runner and how its answer comes back.
// The real runner (the NATS pool) is exercised end to end in packages/cli/src/chat-queue.e2e.test.ts; here a recording
// runner shows the box's side: the requests, the result format, and the combinations refused.
import { describe, expect, it } from "vitest";
import { Skill } from "@skillport/core";
import { AgentError, resultText, SkillBox, type RemoteRunRequest, type RemoteRunResult } from "../index.js";

function recorder(answer: Partial<RemoteRunResult> = {}) {
  const requests: RemoteRunRequest[] = [];
  return {
    requests,
    run: (request: RemoteRunRequest): Promise<RemoteRunResult> => {
      requests.push(request);
      return Promise.resolve({
        stdout: "out\n",
        stderr: "",
        exitCode: 0,
        signal: null,
        timedOut: false,
        aborted: false,
        outputLimitExceeded: false,
        sandbox: "queue runner r1 (bubblewrap)",
        durationMs: 5,
        ...answer,
      });
    },
  };
}

async function box(runner: ReturnType<typeof recorder>): Promise<SkillBox> {
  const b = new SkillBox();
  await b.registerSkill(
    Skill.builder()
      .name("tool")
      .description("A tool skill.")
      .skillContent("# Tool\n")
      .addResource("scripts/hi.py", "print('hi')\n")
      .addResource("scripts/lib.py", "X = 1\n")
      .addResource("references/guide.md", "not sent\n")
      .build(),
  );
  b.codeExecution().withShell().withSkillScripts().remote(runner).enable();
  return b;
}

describe("code execution on a remote runner", () => {
  it("a shell command and a skill script become requests; the answer is formatted as a local run's", async () => {
    const runner = recorder();
    const b = await box(runner);
    try {
      const shell = await b.callTool("execute_shell_command", { command: "python3 -c 1 > out.txt", timeout: 9 });
      expect(resultText(shell)).toBe("<returncode>0</returncode><stdout>out\n</stdout><stderr></stderr>");
      expect(shell.details).toMatchObject({ sandbox: "queue runner r1 (bubblewrap)", exitCode: 0 });
      expect(runner.requests[0]).toMatchObject({
        sessionId: "default",
        run: { kind: "shell", command: "python3 -c 1 > out.txt" },
        timeoutSeconds: 9,
      });
      // The policy still applies before anything is sent.
      expect(resultText(await b.callTool("execute_shell_command", { command: "rm -rf /" }))).toMatch(/refused/);
      expect(runner.requests).toHaveLength(1);

      const load = resultText(
        await b.callTool("load_skill_through_path", { skillId: "tool_custom", path: "SKILL.md" }),
      );
      expect(load).toMatch(/run_skill_script/);
      expect(load).not.toMatch(/copied|are in \//);
      await b.callTool("run_skill_script", { skillId: "tool_custom", script: "hi.py", args: ["a b"] });
      const script = runner.requests[1]!;
      expect(script.run).toMatchObject({
        kind: "script",
        interpreter: "python3",
        script: "scripts/hi.py",
        args: ["a b"],
      });
      const files = script.run.kind === "script" ? script.run.files : [];
      expect(files.map((f) => [f.path, Buffer.from(f.bytes).toString(), f.executable])).toEqual([
        ["scripts/hi.py", "print('hi')\n", true],
        ["scripts/lib.py", "X = 1\n", true],
      ]);
      expect(b.getSkillPrompt()).toMatch(/runner pool/);
      expect(b.getSkillPrompt()).not.toMatch(/copied to a folder/);
    } finally {
      await b.close();
    }
  });

  it("a timeout, a cancellation and a refusal by the pool come back as upstream's errors", async () => {
    const timedOut = await box(recorder({ timedOut: true, exitCode: null, stdout: "" }));
    const failed = await box(recorder({ failure: "the pool is busy: maximum messages exceeded" }));
    try {
      const t = await timedOut.callTool("execute_shell_command", { command: "python3 -c 1", timeout: 2 });
      expect(resultText(t)).toBe(
        "<returncode>-1</returncode><stdout></stdout><stderr>TimeoutError: the command ran longer than 2 seconds and was stopped.</stderr>",
      );
      expect(t.isError).toBe(true);
      const f = await failed.callTool("execute_shell_command", { command: "python3 -c 1" });
      expect(resultText(f)).toBe(
        "<returncode>-1</returncode><stdout></stdout><stderr>Error: the command could not be run: the pool is busy: maximum messages exceeded</stderr>",
      );
    } finally {
      await timedOut.close();
      await failed.close();
    }
  });

  it("is refused with the file tools, a deployed version or a least-privilege policy", () => {
    const runner = recorder();
    expect(() => new SkillBox().codeExecution().withShell().withWrite().remote(runner).enable()).toThrow(AgentError);
    expect(() => new SkillBox().codeExecution().withShell().withRead().remote(runner).enable()).toThrow(
      /remote\(\) cannot be combined with withRead\(\)\/withWrite\(\)/,
    );
    expect(() =>
      new SkillBox()
        .codeExecution()
        .withShell()
        .sandbox({ leastPrivilege: { network: [{ host: "localhost", port: 80, private: true }] } })
        .remote(runner)
        .enable(),
    ).toThrow(/least-privilege policy/);
  });
});
