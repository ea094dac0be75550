#!/usr/bin/env node
// Writes dist/openclaw-plugin.js: the OpenClaw plugin entry and everything it imports as one file
// (the `openclaw.extensions` entry of package.json). OpenClaw copies and hashes each file a
// plugin loads, and each package it imports whole, every time it starts (a gateway, or every
// `openclaw agent --local` run): the plugin as compiled, 200 modules importing zod, yaml and hono
// (about 1,900 files), added 7 seconds to each start on a two-core machine, the bundle 1 second
// (bench/openclaw-overhead.ts measures both). The SDK stays OpenClaw's own.
import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(repo, "dist");
const outfile = join(dist, "openclaw-plugin.js");

/**
 * A module that finds files next to itself (a worker script, the bundled bash parser) reads its
 * own URL: in the bundle, that is the URL it has in dist/, reckoned from where the bundle is
 * loaded, so the files are found where the build put them.
 */
const ownUrlKept = {
  name: "own-url-kept",
  setup(plugin) {
    plugin.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const fromBundle = relative(dirname(outfile), args.path).split("\\").join("/");
      return { contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(`./${fromBundle}`)}, import.meta.url).href`), loader: "js" };
    });
  },
};

await build({
  entryPoints: [join(dist, "adapters/openclaw/index.js")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["openclaw", "openclaw/*"],
  plugins: [ownUrlKept],
  outfile,
  logLevel: "warning",
  legalComments: "inline",
  // yaml's Node build is CommonJS and requires Node's own modules, which an ES module has no
  // `require` for: the bundle makes one.
  banner: { js: 'import { createRequire as createRequireForBundle } from "node:module"; const require = createRequireForBundle(import.meta.url);' },
});
