// CopilotKit's predictive state, as the page applies it: a CUSTOM "PredictState" event names
// which tool argument feeds which state key ([{state_key, tool, tool_argument}]), and while the
// model writes that tool's arguments, their partial JSON is parsed at every chunk and the
// argument copied into the state, so the page shows it before the call is complete. The
// server's STATE_SNAPSHOT / STATE_DELTA after the call then holds the same value.

// The value of a JSON text cut anywhere: open strings, arrays and objects are closed; a
// dangling key, colon, comma or half escape is dropped. Null when nothing usable is there yet.
export function parsePartialJson(text) {
  const closers = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if (char === "}" || char === "]") closers.pop();
  }
  let body = text;
  if (inString) body = body.replace(/\\u[0-9a-fA-F]{0,3}$|\\$/, "") + '"';
  const tails = [body, body.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, ""), body.replace(/[,:]\s*$/, "")];
  for (const tail of tails) {
    try {
      return JSON.parse(tail + [...closers].reverse().join(""));
    } catch {
      // Try the next, shorter form.
    }
  }
  return null;
}

// A PredictState event: keep its declarations for the calls of this run.
export function notePrediction(run, event) {
  if (event.name !== "PredictState" || !Array.isArray(event.value)) return;
  run.predictions = event.value.filter((p) => p && typeof p.state_key === "string" && typeof p.tool === "string");
}

// After a chunk of `call`'s arguments: copy the predicted argument into the state.
export function predictState(conversation, run, call) {
  const predictions = (run.predictions ?? []).filter((p) => p.tool === call.function.name);
  if (!predictions.length) return;
  const args = parsePartialJson(call.function.arguments);
  if (!args || typeof args !== "object") return;
  for (const { state_key: key, tool_argument: argument } of predictions) {
    const value = argument == null ? args : args[argument];
    if (value === undefined) continue;
    const base = conversation.state && typeof conversation.state === "object" ? conversation.state : {};
    conversation.state = { ...base, [key]: structuredClone(value) };
    run.predicted = (run.predicted ?? 0) + 1;
  }
}
