#!/usr/bin/env node
// Writes dist/core/bash-parser.cjs: @ericcornelissen/bash-parser and its dependencies as one file.
// The parser loads parts of itself on every parse (its grammar, its AST builder's helpers, itself
// again for `$(...)`). A host that removes a plugin's files once it has loaded them (OpenClaw
// prunes its plugin captures, a config hot reload among the triggers) then leaves a parser that
// fails on every script it has not seen; one file, loaded when the plugin is, cannot.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
await build({
  stdin: { contents: 'module.exports = require("@ericcornelissen/bash-parser");', resolveDir: repo, loader: "js" },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: join(repo, "dist/core/bash-parser.cjs"),
  logLevel: "warning",
  legalComments: "inline",
});
