import { describe, expect, it } from "vitest";
import { ProviderUnavailableError } from "@skillport/core";
import { parseSqlAddress } from "./connection.js";
import { SqlSkillRepository } from "./repository.js";
import { serverAvailable } from "./test-support/databases.js";

const SECRET = "Corr3ctHorseBattery";
const mysqlUp = await serverAvailable("mysql");
const postgresUp = await serverAvailable("postgres");

/** Everything an error can show: message, JSON form, its cause chain and util.inspect-like fields. */
function everything(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(String(e), JSON.stringify(e), String((e as Error).stack ?? ""));
  }
  return parts.join("\n");
}

async function failure(connection: string): Promise<unknown> {
  try {
    await SqlSkillRepository.open({ connection });
  } catch (error) {
    return error;
  }
  throw new Error("expected the open to fail");
}

describe("SQL errors never show the connection password", () => {
  it("an unreachable PostgreSQL server: unavailable, address redacted", async () => {
    const error = await failure(`postgres://postgres:${SECRET}@127.0.0.1:1/db`);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as Error).message).toContain("postgres://postgres:***@127.0.0.1:1/db");
    expect(everything(error)).not.toContain(SECRET);
  });

  it.runIf(mysqlUp)("MariaDB refusing the password", async () => {
    const error = await failure(`mysql://root:${SECRET}@127.0.0.1:3306/test`);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(everything(error)).not.toContain(SECRET);
  });

  it.runIf(postgresUp)("a PostgreSQL database that does not exist", async () => {
    const error = await failure(`postgres://postgres:${SECRET}@127.0.0.1:5432/skillport_no_such_db`);
    expect((error as Error).message).toMatch(/does not exist/);
    expect(everything(error)).not.toContain(SECRET);
  });

  it("an address the URL parser refuses (its port is out of range; Node puts the whole input on its error)", () => {
    let caught: unknown;
    try {
      parseSqlAddress(`postgres://u:${SECRET}@h:99999/db`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "SQL_CONFIG" });
    expect(everything(caught)).not.toContain(SECRET);
  });

  it("getRepositoryInfo and the source name hide the password", () => {
    const repo = new SqlSkillRepository({ connection: `postgres://postgres:${SECRET}@127.0.0.1:5432/db` });
    expect(JSON.stringify(repo.getRepositoryInfo())).not.toContain(SECRET);
    expect(repo.name).toBe("postgres://postgres:***@127.0.0.1:5432/db");
    expect(repo.getSource()).not.toContain(SECRET);
  });
});
