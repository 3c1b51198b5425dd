#!/usr/bin/env node
/**
 * Plays a conversation through `@ag-ui/client` 1.0.0's HttpAgent with the real
 * `@ag-ui/a2ui-middleware` in front of it, configured as the Dojo configures it
 * for the dynamic-schema and recovery pages (`injectA2UITool: true` and the
 * page's component schema), and prints one JSON document: per turn, the body
 * the client posted (as the middleware marked it) and every event the
 * subscriber received after the middleware (its ACTIVITY_SNAPSHOT surfaces,
 * "retrying" and "failed" states included).
 *
 *   node e2e/run-a2ui-middleware.mjs < scenario.json
 *
 * Scenario: {"url": str, "threadId"?: str, "schema"?: object, "turns": [str, ...],
 * "withoutProtocolVersion"?: bool}. With `withoutProtocolVersion` the body goes out
 * without `protocolVersion`, as CopilotKit's runtime forwards it (the Dojo applies
 * this middleware inside its runtime).
 * Exit code: 0 when every turn finished, 1 otherwise.
 */
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";

const input = await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
});
const scenario = JSON.parse(input);
const requests = [];
const agent = new HttpAgent({
  url: scenario.url,
  threadId: scenario.threadId ?? randomUUID(),
  fetch: async (url, init) => {
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
    if (body && scenario.withoutProtocolVersion) delete body.protocolVersion;
    requests.push(body);
    return fetch(url, body ? { ...init, body: JSON.stringify(body) } : init);
  },
});
agent.use(new A2UIMiddleware({ injectA2UITool: true, ...(scenario.schema ? { schema: scenario.schema } : {}) }));

const turns = [];
for (const text of scenario.turns) {
  const events = [];
  let error = null;
  let finished = false;
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  try {
    await agent.runAgent(
      { runId: randomUUID() },
      {
        onEvent: ({ event }) => {
          events.push(structuredClone(event));
          if (event.type === "RUN_FINISHED") finished = true;
        },
      },
    );
  } catch (err) {
    error = String(err?.message ?? err);
  }
  turns.push({ ok: error === null && finished, error, request: requests.at(-1) ?? null, events });
  if (error !== null) break;
}
// Exit only once the report is written: a pipe takes 64 KiB at a time, and exiting earlier
// cuts a longer report short.
const ok = turns.every((turn) => turn.ok);
process.stdout.write(JSON.stringify({ ok, turns }) + "\n", () => process.exit(ok ? 0 : 1));
