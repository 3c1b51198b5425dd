// The examples page: pick an example, chat with it, answer its tools and approvals, and
// watch the protocol (state, event log) on the side.

import { Conversation, newId, resumeEntry } from "./agui.js";
import { attachmentPicker, messageContent } from "./attachments.js";
import { pageConfig } from "./examples.js";
import { h, messageView, parseJson, pretty, runCard, stepList } from "./render.js";
import { stateViews } from "./state.js";
import { callDecisions } from "./statuses.js";
import { automaticAnswer, backgroundOf } from "./tools.js";

const $ = (selector) => document.querySelector(selector);

const page = {
  examples: [],
  current: null, // the selected example from /health
  conversations: new Map(), // example name -> Conversation
  decisions: new Map(), // interrupt id -> {kind: "approve" | "edit" | "reject" | "cancel", editedArgs, reason}
  edits: new Map(), // interrupt id -> the arguments being edited (field name -> text), while the form is open
  reasons: new Map(), // interrupt id -> the reason typed for a rejection
  pageError: null,
  scheduled: false,
  loggedRun: null, // the run whose events the side panel lists
  loggedCount: 0,
  attachments: null, // the composer's file picker
  drawnState: null, // what the state panel was last drawn from (running flag and JSON)
};

// Examples whose server keeps threads (health says keeps_threads) keep their thread id in
// localStorage, so a reloaded page asks the server for the same thread. The others (stateless
// on the server) are kept whole in localStorage: the history, the state and open approvals,
// sent back with the next request as any AG-UI client does.
const threadKey = (name) => `agui-examples:thread:${name}`;
const chatKey = (name) => `agui-examples:chat:${name}`;

function savedChat(name) {
  try {
    const saved = JSON.parse(localStorage.getItem(chatKey(name)) ?? "null");
    return saved && typeof saved.threadId === "string" && Array.isArray(saved.messages) ? saved : null;
  } catch {
    return null;
  }
}

// Keep a conversation the server does not keep; one too large for localStorage is not kept.
function saveChat(chat) {
  if (!chat.savedAs) return;
  const kept = { threadId: chat.threadId, messages: chat.messages, state: chat.state, pendingInterrupts: chat.pendingInterrupts };
  try {
    localStorage.setItem(chat.savedAs, JSON.stringify(kept));
  } catch {
    localStorage.removeItem(chat.savedAs);
  }
}

function newChat(example) {
  const config = pageConfig(example.name);
  const kept = example.keeps_threads ? localStorage.getItem(threadKey(example.name)) : null;
  const saved = example.keeps_threads ? null : savedChat(example.name);
  const threadId = kept ?? saved?.threadId;
  const chat = new Conversation({ url: example.path, tools: config.tools, context: config.context, forwardedProps: config.forwardedProps, ...(threadId ? { threadId } : {}) });
  // Kept from the first run on: a thread never sent is unknown to the server.
  chat.keptAs = example.keeps_threads ? threadKey(example.name) : null;
  chat.savedAs = example.keeps_threads ? null : chatKey(example.name);
  chat.state = structuredClone(config.state); // The state the example's page starts from.
  chat.restore = kept !== null; // ask the server for the thread once, on first show
  chat.stoppable = example.keeps_threads; // its runs belong to the server, which can stop them
  if (saved) {
    chat.messages = saved.messages;
    chat.state = saved.state ?? chat.state;
    chat.pendingInterrupts = Array.isArray(saved.pendingInterrupts) ? saved.pendingInterrupts : [];
    chat.restoredFromBrowser = true;
  }
  return chat;
}

function conversation() {
  const example = page.current;
  if (!example) return null;
  if (!page.conversations.has(example.name)) page.conversations.set(example.name, newChat(example));
  return page.conversations.get(example.name);
}

// A request with no new message and no resume: the server answers with the stored state,
// messages and open approvals, and calls no model; while an answer is still being written
// (the page was reloaded mid-answer), it joins that run: the rest streams in.
function restore(chat) {
  if (!chat.restore || chat.running) return;
  chat.restore = false;
  startRun(chat);
}

// ---- what the renderer needs to know about the conversation ----------------------------

function buildView(chat) {
  const results = new Map(chat.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m]));
  const calls = new Set(chat.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  const open = new Set(chat.runs.filter((r) => r.status === "running").flatMap((r) => [...r.open]));
  const subagents = [...chat.subagents.values()];
  const attempts = renderAttempts(chat.messages);
  const view = {
    results,
    open,
    running: chat.running,
    pendingIds: new Set(chat.running ? [] : chat.pendingToolCalls().map((c) => c.id)),
    interruptCalls: new Set(chat.pendingInterrupts.map((i) => i.toolCallId).filter(Boolean)),
    decisions: callDecisions(chat.runs),
    hasCall: (id) => calls.has(id),
    subagentsOfCall: (id) => subagents.filter((s) => s.parentToolCallId === id),
    messagesOf: (id) => chat.messages.filter((m) => m.subagentRunId === id),
    stepsOf: (id) => stepList(chat.runs.flatMap((r) => r.steps).filter((s) => s.subagentRunId === id)),
    orphanSubagents: (parentId, runId) =>
      subagents.filter(
        (s) =>
          !(s.parentToolCallId && calls.has(s.parentToolCallId)) &&
          s.parentSubagentRunId === parentId &&
          (runId === undefined || s.runId === runId),
      ),
    answerTool: (call, content) => answerTool(chat, call, content),
    state: () => chat.state,
    setState: (state) => {
      chat.state = state;
    },
    sendAction: (action) => sendAction(chat, action),
    stateBefore: (callId) => chat.runs.find((run) => run.startedToolCalls.includes(callId))?.request.state,
    attemptOf: (callId) => attempts.get(callId) ?? 0,
  };
  return view;
}

// The render_a2ui calls of each generate_a2ui subagent, numbered in order: its attempts.
function renderAttempts(messages) {
  const numbers = new Map();
  const counts = new Map();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) {
      if (call.function.name !== "render_a2ui" || message.subagentRunId == null) continue;
      const count = (counts.get(message.subagentRunId) ?? 0) + 1;
      counts.set(message.subagentRunId, count);
      numbers.set(call.id, count);
    }
  }
  return numbers;
}

function topLevel(chat) {
  return chat.messages.filter((m) => m.subagentRunId == null || !chat.subagents.has(m.subagentRunId));
}

// ---- rendering ---------------------------------------------------------------------------

function schedule() {
  if (page.scheduled) return;
  page.scheduled = true;
  requestAnimationFrame(() => {
    page.scheduled = false;
    render();
  });
}

function renderTranscript(chat) {
  const transcript = $("#transcript");
  const stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
  const view = buildView(chat);
  const messages = topLevel(chat);
  const ids = messages.map((m) => m.id);
  const anchored = new Map();
  const unanchored = [];
  chat.runs.forEach((run, index) => {
    const own = run.newMessageIds.filter((id) => ids.includes(id));
    const anchor = own.length ? own.reduce((a, b) => (ids.indexOf(a) > ids.indexOf(b) ? a : b)) : run.previousLastId;
    if (anchor && ids.includes(anchor)) {
      if (!anchored.has(anchor)) anchored.set(anchor, []);
      anchored.get(anchor).push([run, index]);
    } else {
      unanchored.push([run, index]);
    }
  });
  const nodes = [];
  for (const message of messages) {
    nodes.push(messageView(message, view));
    for (const [run, index] of anchored.get(message.id) ?? []) nodes.push(runCard(run, index, view));
  }
  for (const [run, index] of unanchored) nodes.push(runCard(run, index, view));
  if (!nodes.length) nodes.push(h("p", { class: "empty" }, "No messages yet. Type below, or use the suggested prompt."));
  transcript.replaceChildren(...nodes.filter(Boolean));
  transcript.setAttribute("aria-busy", String(chat.running)); // announce whole replies only
  if (stick) transcript.scrollTop = transcript.scrollHeight;
}

function renderPending(chat) {
  const area = $("#pending");
  const cards = chat.running
    ? []
    : chat.pendingInterrupts.map((interrupt) => {
        const decided = page.decisions.get(interrupt.id);
        const tool = interrupt.metadata?.tool_name ?? chat.findToolCall(interrupt.toolCallId)?.function.name;
        const input = interrupt.metadata?.tool_input ?? chat.findToolCall(interrupt.toolCallId)?.function.arguments;
        const decide = (kind) => () => decideInterrupt(chat, interrupt, { kind, reason: page.reasons.get(interrupt.id) });
        const fields = editableFields(interrupt);
        return h(
          "div",
          { class: "interrupt", role: "group", "aria-label": `Interrupt ${interrupt.reason}`, "data-interrupt-id": interrupt.id },
          h("div", { class: "interrupt-title" }, interrupt.reason === "tool_approval" ? "Approval needed" : `Input needed: ${interrupt.reason}`),
          interrupt.message ? h("p", {}, interrupt.message) : null,
          tool ? h("p", {}, "Tool ", h("code", {}, tool), " wants to run with:") : null,
          input !== undefined ? h("pre", {}, typeof input === "string" ? input : pretty(input)) : null,
          interrupt.expiresAt ? h("p", { class: "hint" }, `Expires at ${interrupt.expiresAt}`) : null,
          decided
            ? h("p", { class: "hint" }, `Your decision: ${DECISION_NAMES[decided.kind]}. Waiting for the other interrupts.`)
            : [
                page.edits.has(interrupt.id) ? editForm(chat, interrupt, fields, tool) : null,
                interrupt.responseSchema?.properties?.reason ? reasonField(interrupt) : null,
                h(
                  "div",
                  { class: "buttons" },
                  h("button", { type: "button", onclick: decide("approve") }, "Approve"),
                  fields && !page.edits.has(interrupt.id)
                    ? h("button", { type: "button", class: "secondary", onclick: () => startEditing(interrupt, fields, input) }, "Edit")
                    : null,
                  h("button", { type: "button", class: "secondary", onclick: decide("reject") }, "Reject"),
                  h("button", { type: "button", class: "secondary", onclick: decide("cancel") }, "Cancel"),
                ),
              ],
        );
      });
  area.replaceChildren(...cards);
}

// ---- approving with edits: a form built from the interrupt's response schema -------------

const DECISION_NAMES = { approve: "approve", edit: "approve with edits", reject: "reject", cancel: "cancel" };

// The arguments a person may edit: the properties of `editedArgs` in the response schema.
function editableFields(interrupt) {
  const schema = interrupt.responseSchema?.properties?.editedArgs;
  if (!schema || schema.type !== "object" || !schema.properties) return null;
  return Object.entries(schema.properties).map(([name, field]) => ({ name, field, label: field.title ?? name }));
}

// A field's type, null left out: `{"type": [...]}` and `{"anyOf": [...]}` (an optional
// argument, such as the refund's amount) give the type that is not null.
function fieldType(field) {
  const types = Array.isArray(field.anyOf) ? field.anyOf.map((option) => option.type) : [field.type].flat();
  return types.find((type) => type && type !== "null");
}

function startEditing(interrupt, fields, input) {
  const proposed = input && typeof input === "object" ? input : {};
  const texts = {};
  for (const { name, field } of fields) {
    const value = proposed[name];
    if (fieldType(field) === "boolean") texts[name] = value === true;
    else texts[name] = value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  }
  page.edits.set(interrupt.id, texts);
  schedule();
}

// The edited arguments, typed by the schema; what does not parse goes as typed, and the server
// refuses it (RUN_ERROR INVALID_APPROVAL) with the interrupt left to answer again.
function editedArguments(fields, texts) {
  const args = {};
  for (const { name, field } of fields) {
    const text = texts[name];
    const type = fieldType(field);
    if (type === "boolean") args[name] = Boolean(text);
    else if (type === "string") args[name] = text;
    else if (type === "number" || type === "integer") args[name] = text.trim() === "" ? null : Number.isFinite(Number(text)) ? Number(text) : text;
    else {
      const parsed = parseJson(text);
      args[name] = parsed.ok ? parsed.value : text;
    }
  }
  return args;
}

function editForm(chat, interrupt, fields, tool) {
  const texts = page.edits.get(interrupt.id);
  const inputs = fields.map(({ name, field, label }) => {
    const type = fieldType(field);
    const attributes = { name, "data-field": name, oninput: (event) => { texts[name] = type === "boolean" ? event.target.checked : event.target.value; } };
    const input =
      type === "boolean"
        ? h("input", { ...attributes, type: "checkbox", checked: texts[name] === true })
        : h("input", { ...attributes, type: type === "number" || type === "integer" ? "number" : "text", step: type === "integer" ? "1" : "any", value: texts[name] });
    return h("label", {}, h("span", {}, label), input);
  });
  const submit = (event) => {
    event.preventDefault();
    const editedArgs = editedArguments(fields, texts);
    page.edits.delete(interrupt.id);
    decideInterrupt(chat, interrupt, { kind: "edit", editedArgs });
  };
  const discard = () => {
    page.edits.delete(interrupt.id);
    schedule();
  };
  return h(
    "form",
    { class: "edit-args", "aria-label": `Edit the arguments of ${tool ?? "the tool"}`, onsubmit: submit },
    inputs,
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "submit" }, "Approve with edits"),
      h("button", { type: "button", class: "secondary", onclick: discard }, "Discard edits"),
    ),
  );
}

function reasonField(interrupt) {
  const input = h("input", {
    type: "text",
    value: page.reasons.get(interrupt.id) ?? "",
    placeholder: "optional, sent with Reject",
    oninput: (event) => page.reasons.set(interrupt.id, event.target.value),
  });
  return h("label", { class: "reason" }, h("span", {}, "Reason"), input);
}

function renderErrors(chat) {
  const run = chat?.lastRun;
  const errors = [];
  if (page.pageError) errors.push(page.pageError);
  if (run?.status === "error") {
    const kinds = { NETWORK: "Network failure", ABORTED: "Stopped", HTTP: "Request refused", INCOMPLETE_STREAM: "Stream cut" };
    const kind = kinds[run.error.code] ?? "Run failed";
    const code = run.error.code && !(run.error.code in kinds) ? ` [${run.error.code}]` : "";
    errors.push(`${kind}: ${run.error.message}${code}`);
  }
  if (run?.patchError) errors.push(run.patchError);
  $("#errors").replaceChildren(...errors.map((text) => h("p", {}, text)));
}

function renderComposer(chat) {
  const waiting = chat && !chat.running && (chat.pendingInterrupts.length > 0 || chat.pendingToolCalls().length > 0);
  const reconnecting = chat?.running && chat.lastRun?.reconnects > 0;
  const answering = reconnecting ? "The agent is answering (the connection dropped and was picked up again)…" : "The agent is answering…";
  const hint = !chat ? "Pick an example first." : chat.running ? answering : waiting ? "Answer the request above to continue." : "";
  $("#composer-hint").textContent = hint;
  $("#send").disabled = !chat || chat.running || waiting;
  $("#stop").hidden = !chat?.running;
}

// The person's edit of the shared recipe: the page's state now, sent with the next request.
// A value typed in place keeps the form (and its focus); a row added or removed redraws it.
function editRecipe(chat, recipe, redraw) {
  chat.state = { ...chat.state, recipe };
  saveChat(chat);
  page.drawnState = redraw ? null : `${chat.running}|${pretty(chat.state)}`;
  renderStateJson(chat);
}

function renderStateJson(chat) {
  const view = $("#state-view");
  const text = pretty(chat?.state ?? {});
  if (view.textContent !== text) {
    view.textContent = text;
    view.classList.remove("changed");
    void view.offsetWidth; // restart the highlight animation
    view.classList.add("changed");
  }
}

function renderState(chat) {
  const drawn = `${chat?.running}|${pretty(chat?.state ?? {})}`;
  if (page.drawnState !== drawn) {
    page.drawnState = drawn;
    const onRecipeEdit = chat ? (recipe, redraw) => { editRecipe(chat, recipe, redraw); if (redraw) schedule(); } : null;
    $("#state-visual").replaceChildren(...stateViews(chat?.state, { onRecipeEdit, running: Boolean(chat?.running) }));
  }
  renderStateJson(chat);
}

function render() {
  const chat = conversation();
  document.querySelectorAll(".example").forEach((button) => {
    button.setAttribute("aria-current", String(button.dataset.name === page.current?.name));
  });
  if (chat) {
    renderTranscript(chat);
    renderPending(chat);
  }
  const background = chat ? backgroundOf(chat.messages) : "";
  if (background) $("#transcript").style.setProperty("background", background);
  else $("#transcript").style.removeProperty("background");
  renderErrors(chat);
  renderComposer(chat);
  renderState(chat);
}

// The side panel shows the raw events of the shown example's last run, the request first.
function syncLog(chat) {
  const run = chat?.lastRun ?? null;
  if (page.loggedRun !== run) {
    page.loggedRun = run;
    page.loggedCount = 0;
    $("#event-log").replaceChildren();
    $("#log-run").textContent = run ? `Run ${chat.runs.length} · ${run.runId}` : "";
    $("#event-count").textContent = "";
    if (run) logEvent(run.request, 0, "REQUEST");
  }
  if (!run) return;
  for (; page.loggedCount < run.events.length; page.loggedCount += 1) {
    logEvent(run.events[page.loggedCount], page.loggedCount + 1);
  }
}

function logEvent(entry, index, label) {
  const payload = JSON.stringify(entry);
  const summary = h("summary", {}, h("span", { class: "event-type" }, label ?? entry.type), " ", h("code", {}, payload.length > 140 ? `${payload.slice(0, 140)}…` : payload));
  $("#event-log").append(h("li", { "data-type": label ?? entry.type }, h("details", {}, summary, h("pre", {}, pretty(entry)))));
  $("#event-count").textContent = `${index} events`;
}

// ---- actions -----------------------------------------------------------------------------

async function startRun(chat, options = {}) {
  if (chat.keptAs) localStorage.setItem(chat.keptAs, chat.threadId);
  chat.controller = new AbortController();
  page.pageError = null;
  const onChange = () => {
    if (chat === conversation()) syncLog(chat);
    schedule();
  };
  const run = await chat.run({ ...options, signal: chat.controller.signal, onChange });
  chat.controller = null;
  saveChat(chat);
  autoAnswer(chat);
  schedule();
  if (run.status !== "running") $("#message").focus();
}

// Answer the open calls of the page's automatic tools (tools.js) at once; run again when no
// other call waits for the person.
function autoAnswer(chat) {
  let answered = 0;
  for (const call of chat.pendingToolCalls()) {
    const content = automaticAnswer(call);
    if (content === null) continue;
    chat.messages.push({ id: newId("tool"), role: "tool", toolCallId: call.id, content });
    answered += 1;
  }
  if (answered && chat.pendingToolCalls().length === 0) startRun(chat);
}

// A click on an A2UI surface, reported as @ag-ui/a2ui-middleware reports it: a
// `log_a2ui_event` call with the action and its result in the history, then a new run.
function sendAction(chat, action) {
  if (chat.running) return;
  const callId = newId("action");
  const args = JSON.stringify(action);
  chat.messages.push({ id: newId("assistant"), role: "assistant", content: "", toolCalls: [{ id: callId, type: "function", function: { name: "log_a2ui_event", arguments: args } }] });
  const said = `User performed action "${action.name}" on surface "${action.surfaceId}" (component: ${action.sourceComponentId}). Context: ${JSON.stringify(action.context)}`;
  chat.messages.push({ id: newId("tool"), role: "tool", toolCallId: callId, content: said });
  startRun(chat);
}

function answerTool(chat, call, content) {
  chat.messages.push({ id: newId("tool"), role: "tool", toolCallId: call.id, content });
  saveChat(chat);
  if (chat.pendingToolCalls().length === 0) startRun(chat);
  else schedule();
}

function decideInterrupt(chat, interrupt, decision) {
  page.decisions.set(interrupt.id, decision);
  if (chat.pendingInterrupts.some((i) => !page.decisions.has(i.id))) {
    schedule();
    return;
  }
  const resume = chat.pendingInterrupts.map((i) => resumeEntry(i, page.decisions.get(i.id)));
  page.decisions.clear();
  page.edits.clear();
  page.reasons.clear();
  startRun(chat, { resume });
}

function readContext(chat) {
  const text = $("#context").value.trim();
  if (!text) return [];
  const parsed = (() => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  })();
  const valid = Array.isArray(parsed) && parsed.every((item) => item && typeof item.description === "string" && typeof item.value === "string");
  if (!valid) throw new Error('Context must be a JSON list of {"description": "...", "value": "..."} objects.');
  chat.context = parsed;
  return parsed;
}

function send(event) {
  event?.preventDefault();
  const chat = conversation();
  const box = $("#message");
  const text = box.value.trim();
  if (!chat || !text || $("#send").disabled) return;
  try {
    readContext(chat);
  } catch (error) {
    page.pageError = error.message;
    schedule();
    return;
  }
  chat.messages.push({ id: newId("user"), role: "user", content: messageContent(text, page.attachments.take()) });
  box.value = "";
  startRun(chat);
}

function selectExample(name) {
  const example = page.examples.find((e) => e.name === name) ?? page.examples[0];
  if (!example) return;
  page.current = example;
  page.decisions.clear();
  page.edits.clear();
  page.reasons.clear();
  const config = pageConfig(example.name);
  const chat = conversation();
  $("#example-title").textContent = example.name;
  $("#example-description").textContent = example.description;
  $("#example-route").textContent = `POST ${example.path}${example.keeps_threads ? " · thread kept on the server" : ""}`;
  $("#context").value = chat.context.length ? pretty(chat.context) : "";
  $("#context-panel").open = chat.context.length > 0;
  page.attachments.setEnabled(config.attachments);
  const marked = config.forwardedProps.injectA2UITool === true;
  const tools = config.tools.map((tool) => tool.name).filter((name) => !(marked && name === "render_a2ui"));
  const notes = [tools.length ? `The page answers: ${tools.join(", ")}` : "", marked ? "Requests marked as @ag-ui/a2ui-middleware marks them." : ""];
  $("#example-tools").textContent = notes.filter(Boolean).join(" ");
  const prompt = $("#suggested");
  prompt.replaceChildren();
  if (config.prompt) {
    prompt.append(
      "Try: ",
      h("button", { type: "button", class: "prompt", onclick: () => { $("#message").value = config.prompt; $("#message").focus(); } }, config.prompt),
    );
  }
  syncLog(chat);
  page.drawnState = null;
  render();
  restore(chat);
  autoAnswer(chat); // a conversation restored from the browser may wait on an automatic tool
}

function newConversation() {
  if (!page.current || conversation()?.running) return;
  localStorage.removeItem(threadKey(page.current.name));
  localStorage.removeItem(chatKey(page.current.name));
  page.conversations.delete(page.current.name);
  selectExample(page.current.name);
}

function listExamples(health) {
  page.examples = health.demos;
  $("#model").textContent = health.offline_demo ? `offline demo model (no API key), as ${health.model}` : `model ${health.model}`;
  $("#examples").replaceChildren(
    ...health.demos.map((demo) => {
      const prompt = pageConfig(demo.name).prompt;
      return h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "example", "data-name": demo.name, onclick: () => { location.hash = demo.name; } },
          h("span", { class: "example-name" }, demo.name),
          h("span", { class: "example-description" }, demo.description),
          prompt ? h("span", { class: "example-prompt" }, `“${prompt}”`) : null,
        ),
      );
    }),
  );
}

async function start() {
  page.attachments = attachmentPicker({
    button: $("#attach"),
    input: $("#attach-input"),
    list: $("#attached"),
    onError: (message) => {
      page.pageError = message;
      schedule();
    },
  });
  $("#composer").addEventListener("submit", send);
  $("#message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) send(event);
  });
  $("#stop").addEventListener("click", () => {
    const chat = conversation();
    chat?.stopOnServer(chat.lastRun); // the run goes on on the server unless it is told to stop
    chat?.controller?.abort();
  });
  $("#new-conversation").addEventListener("click", newConversation);
  window.addEventListener("hashchange", () => selectExample(location.hash.slice(1)));
  try {
    const response = await fetch("health");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    listExamples(await response.json());
  } catch (error) {
    page.pageError = `Could not list the examples from /health: ${error.message}`;
    render();
    return;
  }
  selectExample(location.hash.slice(1));
}

start();
