// A small AG-UI 1.0 client for the examples page: it posts a RunAgentInput, reads the
// Server-Sent Events stream, and keeps the conversation the way @ag-ui/client does
// (messages by id, tool results after their call, history replaced by MESSAGES_SNAPSHOT).
// No DOM here: the page renders what this module keeps.

import { notePrediction, predictState } from "./predict.js";

export const PROTOCOL_VERSION = "1.0";
// A stream that drops before RUN_FINISHED or RUN_ERROR is resumed: the same request again,
// with the last SSE id in Last-Event-ID (the server sends exactly the events after it). After
// this many tries in a row that bring nothing new, the run fails as a cut stream.
export const MAX_RECONNECTS = 5;
const RECONNECT_DELAY_MS = 250;

export function newId(prefix) {
  return `${prefix}-${crypto.randomUUID()}`;
}

// Yield every event of an SSE body: `data:` lines joined, `:` comment lines (keepalives)
// and other fields ignored, one event per blank line. The `id:` of each event, when it has
// one, goes to `cursor.lastId` before the event is yielded (the id to resume after).
export async function* readEvents(body, cursor = {}) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data = [];
  let id = null;
  const take = (line) => {
    if (line === "") {
      const text = data.join("\n");
      const eventId = id;
      data = [];
      id = null;
      if (text === "") return null;
      const event = JSON.parse(text); // a cut event throws: its id is not taken
      if (eventId !== null) cursor.lastId = eventId;
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    if (field === "id") id = value;
    return null;
  };
  for (;;) {
    const { value, done } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const breakLength = buffer.startsWith("\r\n", newline) ? 2 : 1;
      // A lone "\r" at the end of a chunk may be half of "\r\n": wait for the next chunk.
      if (!done && breakLength === 1 && buffer[newline] === "\r" && newline === buffer.length - 1) break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + breakLength);
      const event = take(line);
      if (event !== null) yield event;
    }
    if (done) {
      const event = take(buffer === "" ? "" : buffer) ?? take("");
      if (event !== null) yield event;
      return;
    }
  }
}

// RFC 6902 JSON Patch, for STATE_DELTA and ACTIVITY_DELTA.
export function applyPatch(document, operations) {
  let root = structuredClone(document);
  const parse = (pointer) =>
    pointer === "" ? [] : pointer.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const locate = (tokens) => {
    let parent = root;
    for (const token of tokens.slice(0, -1)) {
      if (parent === null || typeof parent !== "object" || !(token in parent)) {
        throw new Error(`path not found: /${tokens.join("/")}`);
      }
      parent = parent[token];
    }
    return [parent, tokens[tokens.length - 1]];
  };
  const get = (pointer) => {
    let value = root;
    for (const token of parse(pointer)) {
      if (value === null || typeof value !== "object" || !(token in value)) {
        throw new Error(`path not found: ${pointer}`);
      }
      value = value[token];
    }
    return value;
  };
  const remove = (pointer) => {
    const [parent, key] = locate(parse(pointer));
    if (!(key in parent)) throw new Error(`path not found: ${pointer}`);
    const value = parent[key];
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
    return value;
  };
  const add = (pointer, value) => {
    const tokens = parse(pointer);
    if (tokens.length === 0) {
      root = value;
      return;
    }
    const [parent, key] = locate(tokens);
    if (Array.isArray(parent)) {
      const index = key === "-" ? parent.length : Number(key);
      if (!Number.isInteger(index) || index < 0 || index > parent.length) {
        throw new Error(`bad array index: ${pointer}`);
      }
      parent.splice(index, 0, value);
    } else if (parent !== null && typeof parent === "object") {
      parent[key] = value;
    } else {
      throw new Error(`path not found: ${pointer}`);
    }
  };
  for (const op of operations) {
    switch (op.op) {
      case "add": add(op.path, structuredClone(op.value)); break;
      case "remove": remove(op.path); break;
      case "replace":
        if (op.path === "") root = structuredClone(op.value); // The whole document.
        else {
          remove(op.path);
          add(op.path, structuredClone(op.value));
        }
        break;
      case "move": add(op.path, remove(op.from)); break;
      case "copy": add(op.path, structuredClone(get(op.from))); break;
      case "test":
        if (JSON.stringify(get(op.path)) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`);
        break;
      default: throw new Error(`unknown patch operation ${JSON.stringify(op.op)}`);
    }
  }
  return root;
}

// One run as the page shows it: its events, steps, custom events, outcome and usage.
export class RunRecord {
  constructor(runId, request) {
    this.runId = runId;
    this.request = request;
    this.events = [];
    this.status = "running"; // running | finished | error
    this.steps = []; // {name, finished, subagentRunId}
    this.custom = []; // {name, value, position}: position is the event's number in the run
    this.outcome = null;
    this.usage = null;
    this.error = null; // {message, code}
    this.newMessageIds = [];
    this.startedToolCalls = [];
    this.answeredToolCalls = new Set();
    this.open = new Set(); // ids of text, reasoning and tool call windows still streaming
  }
}

function stripNullSubagent(message) {
  if (message.subagentRunId !== null) return message;
  const copy = { ...message };
  delete copy.subagentRunId;
  return copy;
}

// The client side of one conversation with one example route.
export class Conversation {
  constructor({ url, tools = [], context = [], forwardedProps = {}, threadId = newId("thread") }) {
    this.url = url;
    this.tools = tools;
    this.context = context;
    this.forwardedProps = forwardedProps;
    this.threadId = threadId;
    this.messages = [];
    this.state = {};
    this.pendingInterrupts = [];
    this.subagents = new Map(); // subagentRunId -> {name, description, parents, status, ...}
    this.runs = [];
    this.running = false;
    this.stoppable = false; // the server has the stop route (runs that belong to the server)
  }

  get lastRun() {
    return this.runs[this.runs.length - 1] ?? null;
  }

  // Tool calls of the last run that the client must answer (frontend tools).
  pendingToolCalls() {
    const run = this.lastRun;
    if (!run && this.restoredFromBrowser) return this.openCallsOfOwnTools().map((id) => this.findToolCall(id));
    if (!run || run.status !== "finished" || run.outcome?.type !== "success") return [];
    const answered = new Set(this.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
    const ids = run.outcome.pendingToolCallIds?.length
      ? run.outcome.pendingToolCallIds
      : run.restored
        ? this.openCallsOfOwnTools()
        : run.startedToolCalls.filter((id) => !run.answeredToolCalls.has(id));
    return ids.filter((id) => !answered.has(id)).map((id) => this.findToolCall(id)).filter(Boolean);
  }

  // Calls of this client's own tools that no tool message answers: after a restore (a run
  // that sent no message, or a conversation kept in the browser), these are what waits.
  openCallsOfOwnTools() {
    const own = new Set(this.tools.map((tool) => tool.name));
    const answered = new Set(this.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
    return this.messages
      .flatMap((m) => m.toolCalls ?? [])
      .filter((call) => own.has(call.function.name) && !answered.has(call.id))
      .map((call) => call.id);
  }

  findToolCall(id) {
    for (const message of this.messages) {
      const call = message.toolCalls?.find((c) => c.id === id);
      if (call) return call;
    }
    return null;
  }

  request({ resume } = {}) {
    const body = {
      threadId: this.threadId,
      runId: newId("run"),
      protocolVersion: PROTOCOL_VERSION,
      state: structuredClone(this.state),
      messages: this.messages.filter((m) => m.role !== "activity").map(stripNullSubagent),
      tools: this.tools,
      context: this.context,
      forwardedProps: structuredClone(this.forwardedProps),
    };
    if (resume !== undefined) body.resume = resume;
    return body;
  }

  // Post one run and apply its events; `onChange(run)` after each one. Never throws:
  // network, HTTP and stream failures end up in `run.error`. A stream that drops before the
  // run's end is resumed by itself (`run.reconnects` counts the resends).
  async run({ resume, signal, onChange = () => {} } = {}) {
    const body = this.request({ resume });
    const run = new RunRecord(body.runId, body);
    run.previousLastId = this.messages.at(-1)?.id ?? null;
    run.restored = body.messages.length === 0 && resume === undefined; // asks for a kept thread
    run.reconnects = 0;
    this.runs.push(run);
    this.running = true;
    onChange(run);
    try {
      await this.stream(run, body, signal, onChange);
    } finally {
      this.running = false;
      onChange(run);
    }
    return run;
  }

  // Read the run's stream, resending the request when it drops; the events already applied
  // are not applied again: after an id, the server sends only what follows it; before any
  // id, it sends the run from its start again, and as many events as were applied are skipped.
  async stream(run, body, signal, onChange) {
    const cursor = { lastId: null };
    let failures = 0;
    let sinceId = 0;
    let dropped = "The stream ended before RUN_FINISHED or RUN_ERROR.";
    for (;;) {
      let skip = cursor.lastId === null ? sinceId : 0;
      try {
        const response = await this.post(body, cursor.lastId, signal);
        if (!response.ok) {
          const text = (await response.text()).slice(0, 500);
          const message = `HTTP ${response.status} ${response.statusText}: ${text}`;
          if (run.reconnects === 0 || response.status < 500) return failRun(run, message, "HTTP");
          dropped = message;
        } else {
          let seen = cursor.lastId;
          for await (const event of readEvents(response.body, cursor)) {
            const hadId = cursor.lastId !== seen;
            seen = cursor.lastId;
            if (skip > 0) {
              skip -= 1;
              continue;
            }
            failures = 0;
            sinceId = hadId ? 0 : sinceId + 1;
            run.events.push(event);
            this.apply(run, event);
            onChange(run, event);
            if (run.status !== "running") return;
          }
        }
      } catch (error) {
        if (error?.name === "AbortError" || signal?.aborted) return failRun(run, "Stopped by the user.", "ABORTED");
        dropped = `Network error: ${error?.message ?? error}`;
      }
      if (failures >= MAX_RECONNECTS) return failRun(run, dropped, dropped.startsWith("Network") ? "NETWORK" : "INCOMPLETE_STREAM");
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS * 2 ** failures));
      if (signal?.aborted) return failRun(run, "Stopped by the user.", "ABORTED");
      failures += 1;
      run.reconnects += 1;
      onChange(run);
    }
  }

  post(body, lastEventId, signal) {
    const headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
    if (lastEventId !== null) Object.assign(headers, { "Last-Event-ID": lastEventId, "X-Last-Event-ID": lastEventId });
    return fetch(this.url, { method: "POST", headers, body: JSON.stringify(body), signal });
  }

  // Ask the server to stop the run (its route's `/stop`): closing the stream alone leaves the
  // run going on the server. Answered 202 whatever happened; failures are ignored.
  stopOnServer(run) {
    if (!this.stoppable || !run) return;
    const ids = { threadId: this.threadId, runId: run.startedRunId ?? run.runId };
    fetch(`${this.url}/stop`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(ids) }).catch(() => {});
  }

  apply(run, event) {
    const handler = HANDLERS[event.type];
    if (handler) handler(this, run, event);
  }

  // Find a message, or add it (as the client does, tagged with the event's subagent).
  ensureMessage(run, id, fields, subagentRunId) {
    let message = this.messages.find((m) => m.id === id);
    if (!message) {
      message = { id, ...fields };
      if (subagentRunId != null) message.subagentRunId = subagentRunId;
      this.messages.push(message);
      run.newMessageIds.push(id);
    }
    return message;
  }

  parentForToolCall(run, event) {
    const found = event.parentMessageId && this.messages.find((m) => m.id === event.parentMessageId);
    if (found?.role === "assistant") return found;
    const id = found ? event.toolCallId : event.parentMessageId ?? event.toolCallId;
    return this.ensureMessage(run, id, { role: "assistant", toolCalls: [] }, event.subagentRunId);
  }
}

function appendContent(conversation, event) {
  const message = conversation.messages.find((m) => m.id === event.messageId);
  if (message) message.content = `${message.content ?? ""}${event.delta ?? ""}`;
}

function startText(conversation, run, event, defaultRole) {
  conversation.ensureMessage(run, event.messageId, { role: event.role ?? defaultRole, content: "" }, event.subagentRunId);
  run.open.add(event.messageId);
}

function startToolCall(conversation, run, event) {
  if (!run.startedToolCalls.includes(event.toolCallId)) run.startedToolCalls.push(event.toolCallId);
  run.open.add(event.toolCallId);
  if (conversation.findToolCall(event.toolCallId)) return;
  const parent = conversation.parentForToolCall(run, event);
  parent.toolCalls = parent.toolCalls ?? [];
  parent.toolCalls.push({ id: event.toolCallId, type: "function", function: { name: event.toolCallName, arguments: "" } });
}

function toolResult(conversation, run, event) {
  run.answeredToolCalls.add(event.toolCallId);
  const message = { id: event.messageId, role: event.role ?? "tool", toolCallId: event.toolCallId, content: event.content };
  if (event.subagentRunId != null) message.subagentRunId = event.subagentRunId;
  const messages = conversation.messages;
  const callIndex = messages.findIndex((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === event.toolCallId));
  if (callIndex < 0) {
    messages.push(message);
  } else {
    let at = callIndex + 1;
    while (at < messages.length && messages[at].role === "tool") at += 1;
    messages.splice(at, 0, message);
  }
  run.newMessageIds.push(message.id);
}

function messagesSnapshot(conversation, run, event) {
  const incoming = event.messages.map(stripNullSubagent);
  const byId = new Map(incoming.map((m) => [m.id, m]));
  const snapshotHasReasoning = incoming.some((m) => m.role === "reasoning");
  const known = new Set(conversation.messages.map((m) => m.id));
  const kept = conversation.messages
    .filter((m) => byId.has(m.id) || (m.role === "reasoning" && !snapshotHasReasoning))
    .map((m) => byId.get(m.id) ?? m);
  const keptIds = new Set(kept.map((m) => m.id));
  for (const message of incoming) {
    if (!keptIds.has(message.id)) kept.push(message);
    if (!known.has(message.id)) run.newMessageIds.push(message.id);
  }
  conversation.messages = kept;
}

function stateDelta(conversation, run, event) {
  try {
    conversation.state = applyPatch(conversation.state, event.delta);
  } catch (error) {
    run.patchError = `STATE_DELTA could not be applied: ${error.message}`;
  }
}

function activitySnapshot(conversation, run, event) {
  const message = conversation.ensureMessage(run, event.messageId, { role: "activity" }, event.subagentRunId);
  if (event.replace !== false || message.content === undefined) {
    message.activityType = event.activityType;
    message.content = structuredClone(event.content);
  }
}

function activityDelta(conversation, run, event) {
  const message = conversation.messages.find((m) => m.id === event.messageId && m.role === "activity");
  if (!message) return;
  try {
    message.content = applyPatch(message.content ?? {}, event.patch ?? []);
  } catch (error) {
    run.patchError = `ACTIVITY_DELTA could not be applied: ${error.message}`;
  }
}

function failRun(run, message, code) {
  run.status = "error";
  run.error = { message, code };
  return run;
}

function runFinished(conversation, run, event) {
  run.status = "finished";
  run.outcome = event.outcome ?? { type: "success" };
  run.usage = event.usage ?? null;
  run.result = event.result;
  conversation.pendingInterrupts = run.outcome.type === "interrupt" ? run.outcome.interrupts : [];
}

function runError(conversation, run, event) {
  run.status = "error";
  run.error = { message: event.message, code: event.code ?? null };
  run.usage = event.usage ?? null;
}

function subagentStarted(conversation, run, event) {
  conversation.subagents.set(event.subagentRunId, {
    id: event.subagentRunId,
    name: event.name,
    description: event.description ?? null,
    parentToolCallId: event.parentToolCallId ?? null,
    parentSubagentRunId: event.parentSubagentRunId ?? null,
    parentMessageId: event.parentMessageId ?? null,
    status: "running",
    runId: run.runId,
  });
}

function subagentEnded(status) {
  return (conversation, run, event) => {
    const subagent = conversation.subagents.get(event.subagentRunId);
    if (!subagent) return;
    subagent.status = status;
    if (event.outcome) subagent.outcome = event.outcome;
    if (event.message) subagent.error = { message: event.message, code: event.code ?? null };
  };
}

function stepStarted(conversation, run, event) {
  run.steps.push({ name: event.stepName, finished: false, subagentRunId: event.subagentRunId ?? null });
}

function stepFinished(conversation, run, event) {
  const step = [...run.steps].reverse().find((s) => s.name === event.stepName && !s.finished);
  if (step) step.finished = true;
}

function encryptedValue(conversation, run, event) {
  const message = conversation.messages.find((m) => m.id === event.entityId);
  if (message) message.encryptedValue = event.encryptedValue;
  else {
    const call = conversation.findToolCall(event.entityId);
    if (call) call.encryptedValue = event.encryptedValue;
  }
}

function chunk(kind) {
  return (conversation, run, event) => {
    if (kind === "tool") {
      if (event.toolCallId && !conversation.findToolCall(event.toolCallId)) startToolCall(conversation, run, event);
      const call = event.toolCallId && conversation.findToolCall(event.toolCallId);
      if (call) call.function.arguments += event.delta ?? "";
      return;
    }
    if (!event.messageId) return;
    startText(conversation, run, event, kind === "reasoning" ? "reasoning" : "assistant");
    appendContent(conversation, event);
  };
}

const close = (key) => (conversation, run, event) => run.open.delete(event[key]);

const HANDLERS = {
  RUN_STARTED: (conversation, run, event) => {
    run.status = "running";
    run.protocolVersion = event.protocolVersion ?? null;
    run.startedRunId = event.runId; // a reload that joins a live run gets that run's id
  },
  RUN_FINISHED: runFinished,
  RUN_ERROR: runError,
  TEXT_MESSAGE_START: (c, r, e) => startText(c, r, e, "assistant"),
  TEXT_MESSAGE_CONTENT: (c, r, e) => appendContent(c, e),
  TEXT_MESSAGE_END: close("messageId"),
  TEXT_MESSAGE_CHUNK: chunk("text"),
  REASONING_MESSAGE_START: (c, r, e) => startText(c, r, e, "reasoning"),
  REASONING_MESSAGE_CONTENT: (c, r, e) => appendContent(c, e),
  REASONING_MESSAGE_END: close("messageId"),
  REASONING_MESSAGE_CHUNK: chunk("reasoning"),
  REASONING_ENCRYPTED_VALUE: encryptedValue,
  TOOL_CALL_START: startToolCall,
  TOOL_CALL_ARGS: (c, r, e) => {
    const call = c.findToolCall(e.toolCallId);
    if (call) call.function.arguments += e.delta;
    if (call) predictState(c, r, call);
  },
  TOOL_CALL_END: close("toolCallId"),
  TOOL_CALL_CHUNK: chunk("tool"),
  TOOL_CALL_RESULT: toolResult,
  MESSAGES_SNAPSHOT: messagesSnapshot,
  STATE_SNAPSHOT: (c, r, e) => {
    c.state = structuredClone(e.snapshot);
  },
  STATE_DELTA: stateDelta,
  ACTIVITY_SNAPSHOT: activitySnapshot,
  ACTIVITY_DELTA: activityDelta,
  STEP_STARTED: stepStarted,
  STEP_FINISHED: stepFinished,
  CUSTOM: (c, r, e) => {
    r.custom.push({ name: e.name, value: e.value, position: r.events.length });
    notePrediction(r, e);
  },
  SUBAGENT_STARTED: subagentStarted,
  SUBAGENT_FINISHED: subagentEnded("finished"),
  SUBAGENT_ERROR: subagentEnded("error"),
};

// The resume entry for a decision on an open interrupt: {kind: "approve" | "edit" | "reject" |
// "cancel", editedArgs (edit), reason (reject, optional)}, or just the kind.
export function resumeEntry(interrupt, decision) {
  const { kind, editedArgs, reason } = typeof decision === "string" ? { kind: decision } : decision;
  if (kind === "cancel") return { interruptId: interrupt.id, status: "cancelled" };
  const payload = { approved: kind === "approve" || kind === "edit" };
  if (kind === "edit") payload.editedArgs = editedArgs;
  if (kind === "reject" && reason) payload.reason = reason;
  return { interruptId: interrupt.id, status: "resolved", payload };
}
