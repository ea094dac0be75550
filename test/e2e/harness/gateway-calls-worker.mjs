// Makes gateway calls for the tests the way OpenClaw's CLI makes them (its own callGatewayFromCli,
// a connection and a signed device handshake per call), in one process that lives as long as the
// home. Started under OpenClaw's Node with the home's environment, so it finds the home's config,
// token and device identity as the CLI does; the CLI itself costs seconds of CPU at each start.
//
// stdin: one request per line, {id, method, params, opts, extra}; fd 3: one answer per line,
// {id, result} or {id, error}. Answers go to fd 3 because OpenClaw may log to stdout.
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const { callGatewayFromCli } = await import(pathToFileURL(process.argv[2]).href);
const answers = createWriteStream("", { fd: 3 });

for await (const line of createInterface({ input: process.stdin })) {
  const { id, method, params, opts, extra } = JSON.parse(line);
  callGatewayFromCli(method, opts, params, extra).then(
    (result) => answers.write(`${JSON.stringify({ id, result })}\n`),
    (error) => answers.write(`${JSON.stringify({ id, error: String(error instanceof Error ? (error.stack ?? error.message) : error) })}\n`),
  );
}
