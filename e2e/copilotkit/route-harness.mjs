#!/usr/bin/env node
/**
 * Calls a Next.js route handler module's GET and POST the way Next.js does, with a
 * web `Request`, outside Next.js: the route docs/frontends.md shows, compiled by tsc.
 *
 *   node e2e/copilotkit/route-harness.mjs --route <compiled route.js> --agent <id>
 *
 * It asks the runtime behind the route for its agents (`GET <base>/info`), then plays one
 * approval through `POST <base>/agent/<id>/run` as CopilotKit's frontend would: a user
 * message that pauses on an approval, then the same thread resumed with `{approved: true}`.
 * Every request carries an `authorization` header, an `x-*` header and a cookie, so the
 * caller can see which ones reach the upstream server. Prints one JSON document:
 * `{"info", "paused": {"types", "interrupts"}, "resumed": {"types", "results", "text"}}`.
 *
 * With `--stop`, it plays CopilotKit's Stop button instead: one run of `--message`, and once
 * its first text arrives, `POST <base>/agent/<id>/stop/<threadId>` as the frontend sends it;
 * it prints `{"info", "stopped": {"threadId", "status", "answer", "types", "text"}}` (the stop
 * route's status and JSON answer, then what the run's stream brought).
 * Telemetry is off: the runtime makes no request but to the upstream.
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
process.env.DO_NOT_TRACK = "1";

const BASE = "http://localhost:3000/api/copilotkit";
const FORWARD_CHECK = {
  authorization: "Bearer token-of-the-browser",
  "x-docs-check": "forwarded",
  cookie: "session=of-the-browser",
};

function readCommandLine() {
  const { values } = parseArgs({
    options: {
      route: { type: "string" },
      agent: { type: "string" },
      message: { type: "string", default: "Please refund 30 dollars on order A-17" },
      stop: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!values.route || !values.agent) {
    process.stderr.write("usage: route-harness.mjs --route <route.js> --agent <id>\n");
    process.exit(2);
  }
  return values;
}

/** The events of an SSE response body. */
async function events(response) {
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

async function run(route, agent, body) {
  const request = new Request(`${BASE}/agent/${agent}/run`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...FORWARD_CHECK },
    body: JSON.stringify(body),
  });
  return events(await route.POST(request));
}

/** The events of an SSE body as they come, parsed. */
async function* streamedEvents(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop();
    for (const line of lines) {
      if (line.startsWith("data: ")) yield JSON.parse(line.slice("data: ".length));
    }
  }
}

/** One run, stopped as CopilotKit's Stop button stops it once its first text arrives. */
async function stopOne(route, agent, message) {
  const threadId = randomUUID();
  const user = { id: randomUUID(), role: "user", content: message };
  const response = await route.POST(
    new Request(`${BASE}/agent/${agent}/run`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...FORWARD_CHECK },
      body: JSON.stringify(runInput(threadId, [user])),
    }),
  );
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const seen = [];
  let stop = null;
  for await (const event of streamedEvents(response.body)) {
    seen.push(event);
    if (stop === null && event.type === "TEXT_MESSAGE_CONTENT") {
      const request = new Request(`${BASE}/agent/${agent}/stop/${threadId}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...FORWARD_CHECK },
        body: "{}",
      });
      const answer = await route.POST(request);
      stop = { status: answer.status, answer: await answer.json() };
    }
  }
  const text = seen.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
  return { threadId, ...stop, types: seen.map((e) => e.type), text };
}

function runInput(threadId, messages, resume) {
  const input = { threadId, runId: randomUUID(), state: {}, messages, tools: [], context: [] };
  return { ...input, forwardedProps: {}, ...(resume ? { resume } : {}) };
}

async function main() {
  const { route: path, agent, message, stop } = readCommandLine();
  const route = await import(pathToFileURL(resolve(path)).href);
  const info = await (await route.GET(new Request(`${BASE}/info`, { headers: FORWARD_CHECK }))).json();
  if (stop) {
    const stopped = await stopOne(route, agent, message);
    process.stdout.write(`${JSON.stringify({ info, stopped })}\n`);
    return;
  }

  const threadId = randomUUID();
  const user = { id: randomUUID(), role: "user", content: message };
  const paused = await run(route, agent, runInput(threadId, [user]));
  const finished = paused.find((e) => e.type === "RUN_FINISHED");
  const interrupts = finished?.outcome?.interrupts ?? [];
  const snapshot = paused.findLast((e) => e.type === "MESSAGES_SNAPSHOT");
  const answers = interrupts.map((i) => ({
    interruptId: i.id,
    status: "resolved",
    payload: { approved: true },
  }));
  const resumed = await run(route, agent, runInput(threadId, snapshot?.messages ?? [user], answers));
  process.stdout.write(
    `${JSON.stringify({
      info,
      paused: { types: paused.map((e) => e.type), interrupts },
      resumed: {
        types: resumed.map((e) => e.type),
        results: resumed.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.content),
        text: resumed.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join(""),
      },
    })}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
