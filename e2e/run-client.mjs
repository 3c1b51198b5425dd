#!/usr/bin/env node
/**
 * Drives a multi-turn AG-UI conversation through the real `HttpAgent` of
 * `@ag-ui/client` (1.0.0 as "v1", 0.0.59 as "v0", 0.0.57 as "v057") against one
 * URL, and prints one JSON document describing what the client saw.
 *
 *   node e2e/run-client.mjs --client v1|v0|v057 --scenario <file.json | ->
 *   node e2e/run-client.mjs --batch
 *
 * With `--batch`, one process plays any number of scenarios, one after the
 * other: each stdin line is a request `{"client": "v1"|"v0"|"v057", "scenario": {...}}`
 * and each gets one stdout line `{"status": 0|1|2, "document": {...}}`, the
 * status being the exit code a single run would have had. It ends with stdin.
 *
 * Every turn starts from what the client ended the previous turn with
 * (`agent.messages`, `agent.state`, `agent.pendingInterrupts`), adds the new
 * user message, the tool messages answering the pending client tool calls, or
 * the resume entries answering the open interrupts, and runs with a new run id.
 * Events are captured through the client's own subscriber API, so each one has
 * passed that client's schema validation and ordering checks. A rejected run,
 * a timeout, or a stream that ends without RUN_FINISHED / RUN_ERROR makes the
 * turn fail, and so does any warning the client prints while the turn runs
 * (the 1.0 client strips fields and union members it does not know with a
 * warning instead of rejecting them) unless the scenario sets "strict": false.
 * After a failed turn, the remaining turns are reported as not run.
 *
 * Exit code: 0 when every turn is ok, 1 otherwise, 2 for a bad command line or
 * scenario. See README.md in this folder for the scenario format.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const CLIENT_MODULES = {
  v1: "@ag-ui/client",
  v0: "ag-ui-client-v0",
  v057: "ag-ui-client-v0-57",
};
const TURN_KINDS = ["user", "toolResult", "resume", "reload"];
const DEFAULT_TIMEOUT_SECONDS = 60;

/** Raised for a command line or scenario that cannot be run at all. */
class UsageError extends Error {}

/** Raised when a turn cannot be built from the previous turn's result. */
class TurnSetupError extends Error {}

/** Warnings printed by the client while the current turn runs. */
let currentWarnings = null;

/**
 * Keeps stdout for the result document: the client's logging goes to stderr,
 * and its warnings (e.g. unknown fields it stripped) are recorded per turn.
 */
function routeConsole() {
  const toStderr = (...args) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = (...args) => {
    if (currentWarnings !== null) {
      currentWarnings.push(args.map(describeValue).join(" "));
    }
    toStderr(...args);
  };
}

/** Renders any logged value as text. */
function describeValue(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Reads `--batch`, or `--client` and `--scenario`, from the command line. */
function readCommandLine(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        client: { type: "string" },
        scenario: { type: "string" },
        batch: { type: "boolean" },
      },
      strict: true,
    });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { client, scenario, batch } = parsed.values;
  if (batch) {
    if (client !== undefined || scenario !== undefined) {
      throw new UsageError("--batch reads the client and scenario of each run from stdin");
    }
    return { batch: true };
  }
  checkClient(client);
  if (!scenario) {
    throw new UsageError("--scenario <file.json | -> is required");
  }
  return { batch: false, client, scenarioPath: scenario };
}

/** Checks that `client` names one of the client packages. */
function checkClient(client) {
  if (!(client in CLIENT_MODULES)) {
    throw new UsageError(`--client must be one of ${Object.keys(CLIENT_MODULES).join(", ")}`);
  }
}

/** Loads the scenario JSON from a file, or from stdin for "-". */
function loadScenario(path) {
  let text;
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read scenario ${path}: ${err.message}`);
  }
  const scenario = parseJson(text, "scenario");
  checkScenario(scenario);
  return scenario;
}

/** Parses JSON text, naming `what` when it is not valid. */
function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${err.message}`);
  }
}

/** Checks the scenario's shape so that mistakes are reported before any request. */
function checkScenario(scenario) {
  if (!isObject(scenario)) throw new UsageError("scenario must be a JSON object");
  if (typeof scenario.url !== "string" || scenario.url === "") {
    throw new UsageError("scenario.url must be a non-empty string");
  }
  for (const key of ["tools", "context", "messages"]) {
    if (scenario[key] !== undefined && !Array.isArray(scenario[key])) {
      throw new UsageError(`scenario.${key} must be an array`);
    }
  }
  if (scenario.strict !== undefined && typeof scenario.strict !== "boolean") {
    throw new UsageError("scenario.strict must be a boolean");
  }
  const timeout = scenario.timeoutSeconds;
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) {
    throw new UsageError("scenario.timeoutSeconds must be a positive number");
  }
  if (scenario.fetchModule !== undefined && typeof scenario.fetchModule !== "string") {
    throw new UsageError("scenario.fetchModule must be the path of a module");
  }
  for (const key of ["state", "forwardedProps", "headers"]) {
    if (scenario[key] !== undefined && !isObject(scenario[key])) {
      throw new UsageError(`scenario.${key} must be an object`);
    }
  }
  if (!Array.isArray(scenario.turns) || scenario.turns.length === 0) {
    throw new UsageError("scenario.turns must be a non-empty array");
  }
  scenario.turns.forEach(checkTurn);
}

/** Checks that a turn names exactly one known kind with a usable value. */
function checkTurn(turn, index) {
  const where = `scenario.turns[${index}]`;
  if (!isObject(turn)) throw new UsageError(`${where} must be an object`);
  const kinds = TURN_KINDS.filter((kind) => kind in turn);
  if (kinds.length !== 1) {
    throw new UsageError(`${where} must have exactly one of ${TURN_KINDS.join(", ")}`);
  }
  if ("user" in turn && typeof turn.user !== "string" && !Array.isArray(turn.user)) {
    throw new UsageError(`${where}.user must be a string or a list of content parts`);
  }
  if ("toolResult" in turn && !isObject(turn.toolResult)) {
    throw new UsageError(`${where}.toolResult must be an object`);
  }
  if ("reload" in turn && turn.reload !== true) {
    throw new UsageError(`${where}.reload must be true`);
  }
  if ("resume" in turn) {
    if (!isObject(turn.resume)) throw new UsageError(`${where}.resume must be an object`);
    const status = turn.resume.status ?? "resolved";
    if (status !== "resolved" && status !== "cancelled") {
      throw new UsageError(`${where}.resume.status must be "resolved" or "cancelled"`);
    }
  }
}

/** True for a plain JSON object (not null, not an array). */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One-line text for an error; schema errors carry their issues as pretty-printed JSON. */
function errorText(err) {
  const message = err instanceof Error ? err.message : String(err);
  try {
    return JSON.stringify(JSON.parse(message));
  } catch {
    return message;
  }
}

/** Deep copy of a JSON-like value, so later mutations do not leak into the report. */
function copy(value) {
  return value === undefined ? undefined : structuredClone(value);
}

/**
 * The fetch the agent gets: the global one, recording every request body it sends (and the
 * Last-Event-ID of each resend in `requests.resumes`), wrapped by the scenario's
 * `fetchModule` (its `resumingFetch()`) when it names one.
 */
async function agentFetch(scenario, requests) {
  const recording = async (url, init) => {
    requests.push(typeof init?.body === "string" ? JSON.parse(init.body) : null);
    const resumed = new Headers(init?.headers).get("last-event-id");
    if (resumed !== null) requests.resumes.push(resumed);
    return fetch(url, init);
  };
  if (scenario.fetchModule === undefined) return recording;
  const { resumingFetch } = await import(pathToFileURL(scenario.fetchModule).href);
  return resumingFetch({ fetch: recording, retryDelayMs: 10 });
}

/** Creates the client's HttpAgent, recording every request body it sends. */
async function createAgent(clientModule, scenario, requests) {
  const fetchFn = await agentFetch(scenario, requests);
  return new clientModule.HttpAgent({
    url: scenario.url,
    threadId: scenario.threadId ?? randomUUID(),
    initialState: copy(scenario.state) ?? {},
    initialMessages: copy(scenario.messages) ?? [],
    headers: copy(scenario.headers) ?? {},
    fetch: fetchFn,
  });
}

/** Adds what a turn contributes to the agent and returns the resume entries, if any. */
function prepareTurn(clientModule, agent, turn, previous) {
  if ("user" in turn) {
    agent.addMessage({ id: randomUUID(), role: "user", content: turn.user });
    return undefined;
  }
  if ("toolResult" in turn) {
    answerToolCalls(agent, turn.toolResult, previous);
    return undefined;
  }
  if ("reload" in turn) return undefined; // nothing new: a reload asking for the thread
  return resumeEntries(clientModule, agent, turn.resume);
}

/** Adds one tool message per pending client tool call of the previous turn. */
function answerToolCalls(agent, toolResult, previous) {
  const wanted = toolResult.toolName;
  const calls = (previous?.pendingToolCalls ?? []).filter(
    (call) => wanted === undefined || call.name === wanted,
  );
  if (calls.length === 0) {
    const which = wanted === undefined ? "" : ` named ${JSON.stringify(wanted)}`;
    throw new TurnSetupError(`the previous turn left no pending tool call${which} to answer`);
  }
  const content =
    typeof toolResult.content === "string"
      ? toolResult.content
      : JSON.stringify(toolResult.content ?? null);
  for (const call of calls) {
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call.id, content });
  }
}

/** Builds one resume entry per open interrupt, with the client's own helper. */
function resumeEntries(clientModule, agent, resume) {
  const interrupts = agent.pendingInterrupts ?? [];
  if (interrupts.length === 0) {
    throw new TurnSetupError("the previous turn left no interrupt to resume");
  }
  const response =
    resume.status === "cancelled"
      ? { status: "cancelled" }
      : { status: "resolved", ...("payload" in resume ? { payload: resume.payload } : {}) };
  const responses = Object.fromEntries(interrupts.map((i) => [i.id, copy(response)]));
  return clientModule.buildResumeArray(interrupts, responses);
}

/** Tool calls started in this run that got no TOOL_CALL_RESULT in it. */
function unansweredToolCallIds(events) {
  const started = [];
  const answered = new Set();
  for (const event of events) {
    if (event.type === "TOOL_CALL_START") started.push(event.toolCallId);
    if (event.type === "TOOL_CALL_RESULT") answered.add(event.toolCallId);
  }
  return started.filter((id) => !answered.has(id));
}

/**
 * The run's ending as the client reported it to its subscriber. The 0.0.59
 * client names no pending tool calls, so they are derived from the stream the
 * same way the 1.0 client does when the producer names none.
 */
function describeFinish(params, events) {
  if (params.outcome === "interrupt") {
    return { type: "interrupt", interrupts: copy(params.interrupts) };
  }
  if (params.outcome === "cancelled") {
    return { type: "cancelled" };
  }
  const outcome = {
    type: "success",
    pendingToolCallIds: copy(params.pendingToolCallIds) ?? unansweredToolCallIds(events),
  };
  if (params.result !== undefined) outcome.result = copy(params.result);
  return outcome;
}

/** Looks up the name and arguments of each pending tool call in the history. */
function pendingToolCalls(outcome, messages) {
  if (outcome?.type !== "success") return [];
  const known = new Map();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) known.set(call.id, call);
  }
  return outcome.pendingToolCallIds.map((id) => {
    const call = known.get(id);
    return {
      id,
      name: call?.function?.name ?? null,
      arguments: call?.function?.arguments ?? null,
    };
  });
}

/** Subscriber that records every validated event and how the run ended. */
function captureRun() {
  const capture = { events: [], outcome: null };
  capture.subscriber = {
    onEvent: ({ event }) => {
      capture.events.push(copy(event));
    },
    onRunFinishedEvent: (params) => {
      capture.outcome = describeFinish(params, capture.events);
    },
    onRunErrorEvent: ({ event }) => {
      capture.outcome = { type: "error", message: event.message, code: event.code ?? null };
    },
  };
  return capture;
}

/** Runs the agent once, failing when the client rejects, times out or sees no end. */
async function runOnce(agent, scenario, resume, capture, runId) {
  const abortController = new AbortController();
  const seconds = scenario.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abortController.abort();
  }, seconds * 1000);
  try {
    await agent.runAgent(
      {
        runId,
        tools: copy(scenario.tools) ?? [],
        context: copy(scenario.context) ?? [],
        forwardedProps: copy(scenario.forwardedProps) ?? {},
        ...(resume === undefined ? {} : { resume }),
        abortController,
      },
      capture.subscriber,
    );
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw new Error(`the run did not finish within ${seconds} s`);
  if (capture.outcome === null) {
    throw new Error("the stream ended without RUN_FINISHED or RUN_ERROR");
  }
}

/** Plays one turn and returns its report entry. */
async function playTurn(clientModule, agent, scenario, turn, previous, requests) {
  const capture = captureRun();
  const runId = randomUUID();
  const sentBefore = requests.length;
  const resumesBefore = requests.resumes.length;
  currentWarnings = [];
  let error = null;
  try {
    const resume = prepareTurn(clientModule, agent, turn, previous);
    await runOnce(agent, scenario, resume, capture, runId);
  } catch (err) {
    error = errorText(err);
  }
  if (error === null && scenario.strict !== false && currentWarnings.length > 0) {
    error = `the client warned: ${currentWarnings.join(" | ")}`;
  }
  const messages = copy(agent.messages);
  const report = {
    ok: error === null,
    error,
    runId,
    eventTypes: capture.events.map((event) => event.type),
    events: capture.events,
    outcome: capture.outcome,
    messages,
    state: copy(agent.state) ?? {},
    pendingToolCalls: error === null ? pendingToolCalls(capture.outcome, messages) : [],
    interrupts: copy(agent.pendingInterrupts) ?? [],
    request: requests.length > sentBefore ? requests[sentBefore] : null,
    resumedFrom: requests.resumes.slice(resumesBefore),
    warnings: currentWarnings,
  };
  currentWarnings = null;
  return report;
}

/** Report entry for a turn left out because an earlier one failed. */
function notRun(index) {
  return {
    ok: false,
    error: `not run: turn ${index} failed`,
    runId: null,
    eventTypes: [],
    events: [],
    outcome: null,
    messages: [],
    state: {},
    pendingToolCalls: [],
    interrupts: [],
    request: null,
    resumedFrom: [],
    warnings: [],
  };
}

/** Plays every turn of the scenario in order and returns the result document. */
async function playScenario(client, scenario) {
  const clientModule = await import(CLIENT_MODULES[client]);
  const requests = Object.assign([], { resumes: [] });
  const agent = await createAgent(clientModule, scenario, requests);
  const turns = [];
  let failedAt = null;
  for (const [index, turn] of scenario.turns.entries()) {
    if (failedAt !== null) {
      turns.push(notRun(failedAt));
      continue;
    }
    const report = await playTurn(clientModule, agent, scenario, turn, turns.at(-1), requests);
    turns.push(report);
    if (!report.ok) failedAt = index;
  }
  return { ok: failedAt === null, client, turns };
}

/** Writes one JSON line to stdout and resolves once it is flushed. */
function emit(document) {
  return new Promise((resolve) => {
    process.stdout.write(`${JSON.stringify(document)}\n`, () => resolve());
  });
}

/** Plays one request of a batch: its status (as an exit code) and result document. */
async function playRequest(line) {
  try {
    const request = parseJson(line, "request");
    if (!isObject(request)) throw new UsageError("a request must be a JSON object");
    checkClient(request.client);
    checkScenario(request.scenario);
    const document = await playScenario(request.client, request.scenario);
    return { status: document.ok ? 0 : 1, document };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { status: 2, document: { ok: false, error: err.message, turns: [] } };
  }
}

/** Plays the requests read from stdin one at a time, answering each with one line. */
async function playBatch() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    await emit(await playRequest(line));
  }
  return 0;
}

async function main() {
  routeConsole();
  let commandLine;
  let scenario;
  try {
    commandLine = readCommandLine(process.argv.slice(2));
    if (commandLine.batch) return await playBatch();
    scenario = loadScenario(commandLine.scenarioPath);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    await emit({ ok: false, error: err.message, turns: [] });
    return 2;
  }
  const document = await playScenario(commandLine.client, scenario);
  await emit(document);
  return document.ok ? 0 : 1;
}

// An aborted run of one scenario can reject later, while another plays: log it and go on.
process.on("unhandledRejection", (reason) => {
  console.error("unhandled rejection:", reason);
});

// Exit explicitly: an aborted or failed run can leave sockets or timers behind.
main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
