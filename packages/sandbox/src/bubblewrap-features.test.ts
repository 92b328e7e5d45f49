// bwrap's options are read from its executable when it holds them all, from `bwrap --help` otherwise: either way the
// features must be what `--help` says.
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bubblewrapFeatures, featuresFromHelp, findBubblewrap } from "./bubblewrap.js";
import { haveBubblewrap, tempDir } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap((reason) => console.log(reason));
const { dir, cleanup } = await tempDir();
afterAll(cleanup);

describe.runIf(hasBwrap)("bubblewrap features", () => {
  it("read from the executable, they equal what bwrap --help lists", () => {
    const bwrap = findBubblewrap()!;
    expect(bubblewrapFeatures(bwrap)).toEqual(featuresFromHelp(bwrap));
  });

  it("a wrapper script (not an executable to scan) is asked with --help, and gets the same answer", () => {
    const bwrap = findBubblewrap()!;
    const wrapper = path.join(dir, "bwrap-wrapper");
    writeFileSync(wrapper, `#!/bin/sh\nexec ${bwrap} "$@"\n`);
    chmodSync(wrapper, 0o755);
    expect(bubblewrapFeatures(wrapper)).toEqual(featuresFromHelp(bwrap));
  });

  it("a wrapper that lists no options gets none (nothing is assumed from a scan)", () => {
    const silent = path.join(dir, "bwrap-silent");
    writeFileSync(silent, "#!/bin/sh\n# mentions --size --perms --disable-userns but prints nothing\nexit 0\n");
    chmodSync(silent, 0o755);
    expect(bubblewrapFeatures(silent)).toEqual({ size: false, perms: false, disableUserns: false });
  });
});
