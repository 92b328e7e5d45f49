#!/usr/bin/env node
// Committed so npm can link the `skillport` bin at install time, before `prepare` has built dist/.
import "../dist/main.js";
