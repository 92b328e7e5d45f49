#!/usr/bin/env node
// Committed so npm can link the `skillport` bin at install time, before `prepare` has built dist/.
// dist/cli.js is the bundled CLI (decision 0220); dist/main.js is the same program as separate modules.
import "../dist/cli.js";
