// Turns a Conversation into DOM: messages, reasoning, tool call cards, subagent panels and
// one card per run (steps, custom events, usage, outcome). Rebuilt on each change; the open
// or closed state a person gave a collapsible block is remembered by key.

import { a2uiResultView, attemptView } from "./a2ui.js";
import { attachmentViews } from "./attachments.js";
import { markdownBlock } from "./markdown.js";
import { activityView, resultPartsView } from "./media.js";
import { toolStatus } from "./statuses.js";
import { safeBackground } from "./tools.js";

const openBlocks = new Map();

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function collapsible(key, summary, body, { defaultOpen = false, className = "" } = {}) {
  const open = openBlocks.has(key) ? openBlocks.get(key) : defaultOpen;
  // Remember only what the person chose (a click on the summary, or Enter/Space on it).
  const head = h("summary", { onclick: () => openBlocks.set(key, !details.open) }, summary);
  const details = h("details", { class: className, open, "data-key": key }, head, body);
  return details;
}

export function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: null };
  }
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

function argumentsView(call) {
  const raw = call.function.arguments;
  const parsed = parseJson(raw);
  return h("pre", { class: "args", "aria-label": `Arguments of ${call.function.name}` }, parsed.ok ? pretty(parsed.value) : raw || "…");
}

function weatherCard(result) {
  const report = parseJson(result).value;
  if (!report || typeof report !== "object" || !("city" in report)) return null;
  return h(
    "div",
    { class: "weather-card", role: "group", "aria-label": `Weather in ${report.city}` },
    h("div", { class: "weather-city" }, report.city),
    h("div", { class: "weather-conditions" }, report.conditions),
    h("div", { class: "weather-temp" }, `${report.temperature_c} °C`),
    h(
      "dl",
      {},
      h("dt", {}, "Feels like"), h("dd", {}, `${report.feels_like_c} °C`),
      h("dt", {}, "Humidity"), h("dd", {}, `${report.humidity_percent} %`),
      h("dt", {}, "Wind"), h("dd", {}, `${report.wind_kph} km/h`),
    ),
  );
}

function haikuCard(call) {
  const args = parseJson(call.function.arguments).value;
  if (!args) return null;
  const lines = (list) => (Array.isArray(list) ? list.map((line) => h("p", {}, line)) : []);
  return h(
    "figure",
    { class: "haiku-card", role: "group", "aria-label": "Haiku" },
    h("div", { class: "haiku-japanese", lang: "ja" }, lines(args.japanese)),
    h("div", { class: "haiku-english" }, lines(args.english)),
    args.image_name ? h("figcaption", {}, `Picture: ${args.image_name}`) : null,
  );
}

function stepsReview(call, view) {
  const args = parseJson(call.function.arguments).value;
  if (!args || !Array.isArray(args.steps)) return null;
  const pending = view.pendingIds.has(call.id);
  const boxes = args.steps.map((step, index) =>
    h(
      "li",
      {},
      h(
        "label",
        {},
        h("input", { type: "checkbox", checked: step.status === "enabled", disabled: !pending, "data-step": index }),
        ` ${step.description}`,
      ),
    ),
  );
  const list = h("ul", { class: "steps-review", "aria-label": "Proposed steps" }, boxes);
  if (!pending) return reviewedSteps(args.steps, view.results.get(call.id)) ?? list;
  const kept = () =>
    [...list.querySelectorAll("input")].filter((box) => box.checked).map((box) => args.steps[Number(box.dataset.step)].description);
  return h(
    "div",
    { class: "frontend-tool" },
    h("p", {}, "Review the steps: untick the ones to leave out."),
    list,
    h("div", { class: "buttons" },
      h("button", { type: "button", onclick: () => view.answerTool(call, `The user kept these steps: ${kept().join("; ")}.`) }, "Confirm"),
      h("button", { type: "button", class: "secondary", onclick: () => view.answerTool(call, "The user rejected the plan.") }, "Reject"),
    ),
  );
}

// The steps as the person left them: those unticked marked "left out", all of them when the
// plan was rejected. Read from the answer the page sent (see stepsReview).
function reviewedSteps(steps, result) {
  const answer = typeof result?.content === "string" ? result.content : null;
  if (answer === null) return null;
  const rejected = answer.startsWith("The user rejected");
  const kept = answer.match(/^The user kept these steps: (.*)\.$/s)?.[1].split("; ") ?? [];
  const items = steps.map((step) => {
    const chosen = !rejected && kept.includes(step.description);
    const label = rejected ? "rejected" : chosen ? "kept" : "left out";
    return h("li", { class: `reviewed-step ${chosen ? "kept" : "left-out"}`, "data-choice": label }, `${chosen ? "✓" : "✗"} ${step.description}`, h("span", { class: "choice" }, ` (${label})`));
  });
  return h(
    "div",
    { class: `steps-reviewed${rejected ? " rejected" : ""}` },
    rejected ? h("p", { class: "hint" }, "You rejected this plan.") : null,
    h("ul", { class: "steps-review", "aria-label": rejected ? "Rejected steps" : "Reviewed steps" }, items),
  );
}

// The document editor's confirmation (confirm_changes, or the page's own write_document): the
// document is already in the state (predicted while it was written); Confirm keeps it, Reject
// puts back the document the run started from. The answer is {"accepted": true | false}.
function confirmChanges(call, view) {
  const result = view.results.get(call.id);
  if (result) {
    const accepted = parseJson(result.content).value?.accepted === true;
    return h("p", { class: `confirm-result ${accepted ? "accepted" : "rejected"}` }, accepted ? "✓ Accepted" : "✗ Rejected");
  }
  if (!view.pendingIds.has(call.id)) return null;
  const reject = () => {
    view.setState({ ...view.state(), document: view.stateBefore(call.id)?.document ?? "" });
    view.answerTool(call, JSON.stringify({ accepted: false }));
  };
  return h(
    "div",
    { class: "frontend-tool confirm-changes", role: "group", "aria-label": "Confirm changes" },
    h("p", {}, "Do you want to accept the changes to the document?"),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "secondary", onclick: reject }, "Reject"),
      h("button", { type: "button", onclick: () => view.answerTool(call, JSON.stringify({ accepted: true })) }, "Confirm"),
    ),
  );
}

// The chat background a change_background call asked for, as a swatch, and what became of it.
function backgroundCard(call, view) {
  const background = parseJson(call.function.arguments).value?.background;
  if (typeof background !== "string") return null;
  const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
  if (safeBackground(background)) swatch.style.setProperty("background", background);
  const result = view.results.get(call.id)?.content;
  return h("p", { class: "background-change" }, swatch, " ", result ?? `Background: ${background}`);
}

// A render_a2ui call inside a generate_a2ui subagent: one attempt at the surface, checked as
// the middleware checks it. Its own result ("The surface was rendered.") is not shown: it
// says the call was taken, not whether the surface held.
function attemptCard(call, view) {
  const number = view.attemptOf(call.id);
  return number ? attemptView(call, number, view.open.has(call.id)) : null;
}

const RESULT_CARDS = { get_weather: weatherCard };
const ARGUMENT_CARDS = {
  generate_haiku: haikuCard,
  generate_task_steps: stepsReview,
  confirm_changes: confirmChanges,
  write_document: confirmChanges,
  change_background: backgroundCard,
  render_a2ui: attemptCard,
};
const RESULT_SHOWN_BY_CARD = new Set(["change_background", "render_a2ui"]);

function toolCallCard(call, view) {
  const result = view.results.get(call.id);
  const name = call.function.name;
  const card = ARGUMENT_CARDS[name]?.(call, view);
  const parts = Array.isArray(result?.content) ? result.content : null;
  const resultCard = parts
    ? resultPartsView(parts)
    : result
      ? (RESULT_CARDS[name]?.(result.content) ?? a2uiResultView(result.content, view.sendAction))
      : null;
  return h(
    "div",
    { class: "tool-call", "data-tool": name, "data-call-id": call.id, role: "group", "aria-label": `Tool call ${name}` },
    h("div", { class: "tool-head" }, h("span", { class: "tool-name" }, name), h("span", { class: "tool-status" }, toolStatus(call, result, view))),
    collapsible(`args:${call.id}`, "Arguments", argumentsView(call), { defaultOpen: !card && !resultCard }),
    card,
    resultCard,
    result && !parts && !(card && RESULT_SHOWN_BY_CARD.has(name))
      ? collapsible(`result:${call.id}`, "Result", h("pre", { class: "tool-result" }, result.content), {
          defaultOpen: !resultCard && String(result.content).length <= 400,
        })
      : null,
    view.subagentsOfCall(call.id).map((subagent) => subagentPanel(subagent, view)),
  );
}

function reasoningBlock(message, view) {
  const streaming = view.open.has(message.id);
  return collapsible(
    `reasoning:${message.id}`,
    streaming ? "Reasoning (streaming…)" : "Reasoning",
    h("div", { class: "reasoning-text" }, message.content ?? ""),
    { defaultOpen: streaming, className: "reasoning" },
  );
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((part) => part.type === "text").map((part) => part.text ?? "").join("");
  return content == null ? "" : pretty(content);
}

export function messageView(message, view) {
  switch (message.role) {
    case "user": {
      const files = attachmentViews(message.content);
      return h(
        "div",
        { class: "message user", "data-id": message.id },
        h("div", { class: "who" }, "You"),
        h("div", { class: "text" }, contentText(message.content)),
        files.length ? h("div", { class: "attachments", "aria-label": "Attachments" }, files) : null,
      );
    }
    case "reasoning":
      return reasoningBlock(message, view);
    case "tool":
      return view.hasCall(message.toolCallId)
        ? null
        : h(
            "div",
            { class: "message tool", "data-id": message.id },
            h("div", { class: "who" }, "Tool result"),
            Array.isArray(message.content) ? resultPartsView(message.content) : h("pre", {}, contentText(message.content)),
          );
    case "activity":
      return activityView(message);
    case "system":
    case "developer":
      return h("div", { class: "message system", "data-id": message.id }, h("div", { class: "who" }, message.role), h("div", { class: "text" }, contentText(message.content)));
    default: {
      const text = contentText(message.content);
      const streaming = view.open.has(message.id);
      return h(
        "div",
        { class: `message assistant${streaming ? " streaming" : ""}`, "data-id": message.id },
        text || !message.toolCalls?.length ? h("div", { class: "who" }, message.name ?? "Assistant") : null,
        text ? markdownBlock(text) : null,
        (message.toolCalls ?? []).map((call) => toolCallCard(call, view)),
      );
    }
  }
}

function subagentPanel(subagent, view) {
  const status = { running: "running…", finished: "finished", error: "failed" }[subagent.status] ?? subagent.status;
  const suspended = subagent.outcome?.type === "suspended" ? " (suspended)" : "";
  return h(
    "section",
    { class: `subagent ${subagent.status}`, "data-subagent-run-id": subagent.id, "aria-label": `Subagent ${subagent.name}` },
    h(
      "header",
      {},
      h("span", { class: "subagent-name" }, `Subagent ${subagent.name}`),
      h("span", { class: "subagent-status" }, status + suspended),
    ),
    subagent.description ? h("p", { class: "subagent-description" }, subagent.description) : null,
    subagent.error ? h("p", { class: "subagent-error", role: "alert" }, `${subagent.error.message}${subagent.error.code ? ` (${subagent.error.code})` : ""}`) : null,
    view.messagesOf(subagent.id).map((message) => messageView(message, view)),
    view.stepsOf(subagent.id),
    view.orphanSubagents(subagent.id).map((child) => subagentPanel(child, view)),
  );
}

function usageText(usage) {
  return usage.map((entry) => {
    const parts = [
      `in ${entry.inputTokens ?? "?"}`,
      `out ${entry.outputTokens ?? "?"}`,
      `total ${entry.totalTokens ?? "?"}`,
    ];
    if (entry.reasoningTokens != null) parts.push(`reasoning ${entry.reasoningTokens}`);
    if (entry.cachedInputTokens != null) parts.push(`cached ${entry.cachedInputTokens}`);
    return `${[entry.provider, entry.model].filter(Boolean).join(" ") || "other model calls"}: ${parts.join(", ")}`;
  });
}

function outcomeText(run) {
  if (run.status === "running") return "running…";
  if (run.status === "error") return `error: ${run.error?.message ?? "unknown"}${run.error?.code ? ` (${run.error.code})` : ""}`;
  const outcome = run.outcome;
  if (outcome.type === "interrupt") return `interrupt: ${outcome.interrupts.map((i) => i.reason).join(", ")}`;
  if (outcome.type === "success" && outcome.pendingToolCallIds?.length) {
    return `success, waiting for the page to answer ${outcome.pendingToolCallIds.length} tool call(s)`;
  }
  return outcome.type;
}

export function stepList(steps) {
  if (!steps.length) return null;
  return h(
    "ol",
    { class: "steps", "aria-label": "Steps" },
    steps.map((step) => h("li", { class: step.finished ? "finished" : "open" }, `${step.name} ${step.finished ? "✓" : "…"}`)),
  );
}

export function runCard(run, index, view) {
  const resume = run.request.resume;
  return h(
    "div",
    { class: `run-card ${run.status}`, "data-run-id": run.runId, role: "group", "aria-label": `Run ${index + 1}` },
    h("div", { class: "run-head" }, h("span", {}, `Run ${index + 1}`), h("span", { class: "run-outcome" }, outcomeText(run))),
    resume ? h("div", { class: "run-resume" }, `Resumed with: ${resume.map((entry) => `${entry.status}${entry.payload ? ` ${JSON.stringify(entry.payload)}` : ""}`).join(", ")}`) : null,
    stepList(run.steps.filter((step) => step.subagentRunId === null)),
    run.custom.map((event) =>
      h("div", { class: "custom-event", "data-name": event.name }, h("span", { class: "custom-name" }, `CUSTOM ${event.name}`), h("span", { class: "custom-position" }, ` event ${event.position} of ${run.events.length}`), h("pre", {}, pretty(event.value))),
    ),
    view.orphanSubagents(null, run.runId).map((subagent) => subagentPanel(subagent, view)),
    run.result !== undefined ? h("div", { class: "run-result" }, `Result: ${JSON.stringify(run.result)}`) : null,
    run.usage?.length ? h("ul", { class: "usage", "aria-label": "Usage" }, usageText(run.usage).map((line) => h("li", {}, line))) : null,
    run.predicted ? h("div", { class: "run-predicted" }, `PredictState: the state followed ${run.predicted} chunks of the arguments as they streamed`) : null,
    run.patchError ? h("div", { class: "run-error" }, run.patchError) : null,
  );
}
