#!/usr/bin/env node
/**
 * Serves AG-UI routes of an upstream server through CopilotKit's runtime 1.75
 * (v2 API), the way most applications deploy an AG-UI agent:
 *
 *   node e2e/copilotkit/runtime.mjs --upstream http://127.0.0.1:8000 --agents a,b
 *
 * Each name becomes one `HttpAgent` (the runtime's own `@ag-ui/client` 0.0.59)
 * posting to `<upstream>/<name>`, registered under that id in a `CopilotRuntime`
 * with an `InMemoryAgentRunner` and served by `createCopilotNodeListener` on a
 * free port of 127.0.0.1. Clients post a RunAgentInput to
 * `<base>/agent/<name>/run`, as CopilotKit's frontend does.
 *
 * The first line on stdout is `{"url": "<base>"}` once the server listens.
 * Everything the runtime logs goes to stderr, each line prefixed with its level
 * (`[error]`, `[warn]`, ...), so the caller can fail on any error it logged.
 * Telemetry is off: the runtime makes no request but to the upstream.
 *
 * `--resuming-fetch <module.js>` gives each agent that module's `resumingFetch()` as its
 * `fetch` (the compiled `lib/resuming-fetch.ts` of docs/frontends.md).
 */
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
process.env.DO_NOT_TRACK = "1";

const BASE_PATH = "/api/copilotkit";

/** Every console method writes to stderr with its level, keeping stdout for the URL line. */
function routeConsole() {
  for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
    console[level] = (...args) => {
      const text = args
        .map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : safeJson(a)))
        .join(" ");
      process.stderr.write(`[${level}] ${text}\n`);
    };
  }
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function readCommandLine() {
  const { values } = parseArgs({
    options: {
      upstream: { type: "string" },
      agents: { type: "string" },
      "resuming-fetch": { type: "string" },
    },
    strict: true,
  });
  if (!values.upstream || !values.agents) {
    process.stderr.write("usage: runtime.mjs --upstream <base url> --agents <name,name,...>\n");
    process.exit(2);
  }
  const names = values.agents.split(",").filter(Boolean);
  return {
    upstream: values.upstream.replace(/\/+$/, ""),
    names,
    resumingFetchModule: values["resuming-fetch"],
  };
}

async function main() {
  routeConsole();
  const { upstream, names, resumingFetchModule } = readCommandLine();
  // Imported after the environment is set, so telemetry reads it as off.
  const { HttpAgent } = await import("@ag-ui/client");
  const { CopilotRuntime, InMemoryAgentRunner } = await import("@copilotkit/runtime/v2");
  const { createCopilotNodeListener } = await import("@copilotkit/runtime/v2/node");

  const wrapped = resumingFetchModule
    ? { fetch: (await import(pathToFileURL(resumingFetchModule).href)).resumingFetch() }
    : {};
  const agents = Object.fromEntries(
    names.map((name) => [name, new HttpAgent({ url: `${upstream}/${name}`, ...wrapped })]),
  );
  const runtime = new CopilotRuntime({ agents, runner: new InMemoryAgentRunner() });
  const listener = createCopilotNodeListener({ runtime, basePath: BASE_PATH, activateChannels: false });
  const server = createServer(listener);
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}${BASE_PATH}` })}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((err) => {
  process.stderr.write(`[error] runtime failed to start: ${err.stack ?? err}\n`);
  process.exit(1);
});
