// The frontend tools the page answers at once, without asking the person: the haiku card
// (drawn from the call's arguments) and change_background (the chat's background). Every other
// tool the page declares waits for the person (the steps review, Confirm / Reject).

import { parseJson } from "./render.js";

// CSS functions that would make the browser fetch something, which the page never does.
const FETCHING = /\b(?:url|image|image-set|-webkit-image-set|cross-fade|element|src)\s*\(/i;

// Whether `value` is a background the page may apply: CSS the browser accepts, loading nothing.
export function safeBackground(value) {
  if (typeof value !== "string" || !value.trim() || value.length > 500 || FETCHING.test(value)) return false;
  return CSS.supports("background", value);
}

function changeBackground(call) {
  const background = parseJson(call.function.arguments).value?.background;
  if (!safeBackground(background)) {
    return `The background was not changed: ${JSON.stringify(background ?? null)} is not a CSS background the page can show (it loads no images).`;
  }
  return `Background changed to ${background}.`;
}

const ANSWERS = {
  generate_haiku: () => "Haiku shown.",
  change_background: changeBackground,
};

// The answer the page gives a call of one of its automatic tools, or null for another tool.
export function automaticAnswer(call) {
  return ANSWERS[call.function.name]?.(call) ?? null;
}

// The background the conversation set last (the latest change_background the page applied),
// or "" for none: it follows the history, so a restored conversation keeps its background.
export function backgroundOf(messages) {
  const applied = new Set(
    messages.filter((m) => m.role === "tool" && String(m.content ?? "").startsWith("Background changed to ")).map((m) => m.toolCallId),
  );
  let background = "";
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) {
      if (call.function.name !== "change_background" || !applied.has(call.id)) continue;
      const value = parseJson(call.function.arguments).value?.background;
      if (safeBackground(value)) background = value;
    }
  }
  return background;
}
