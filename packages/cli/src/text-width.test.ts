import { describe, expect, it } from "vitest";
import { displayWidth, padEndColumns, truncateColumns } from "./text-width.js";

describe("terminal text width", () => {
  it.each([
    ["abc", 3],
    ["数据清洗", 8],
    ["e\u0301", 1],
    ["ｆｕｌｌ", 8],
    ["", 0],
  ])("%j is %i columns", (text, width) => expect(displayWidth(text)).toBe(width));

  it("pads and truncates by columns", () => {
    expect(padEndColumns("数据", 6)).toBe("数据  ");
    expect(truncateColumns("数据清洗abc", 6)).toBe("数据…");
    expect(displayWidth(truncateColumns("数据清洗abc", 7))).toBeLessThanOrEqual(7);
    expect(truncateColumns("short", 10)).toBe("short");
  });
});
