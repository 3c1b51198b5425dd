// What became of each tool call, for its card: still streaming, waiting, done, or not done
// because the person rejected or cancelled it, or because it was abandoned.

// Results the server gives a call that did not run (the SDK's rejection text and the package's
// results for cancelled and abandoned calls), and the page's own answer to a rejected plan.
const REJECTED_RESULTS = new Set(["Tool execution was not approved.", "The user rejected the plan."]);
const CANCELLED_RESULT = "CANCELLED";
const ABANDONED_RESULT = "ABANDONED";

// The person's decision on each paused call, by tool call id, from the resume entries sent.
export function callDecisions(runs) {
  const callOf = new Map();
  const decisions = new Map();
  for (const run of runs) {
    for (const entry of run.request.resume ?? []) {
      const call = callOf.get(entry.interruptId);
      if (!call) continue;
      if (entry.status === "cancelled") decisions.set(call, "cancelled");
      else decisions.set(call, entry.payload?.approved === false ? "rejected" : "approved");
    }
    for (const interrupt of run.outcome?.type === "interrupt" ? run.outcome.interrupts : []) {
      callOf.set(interrupt.id, interrupt.toolCallId ?? interrupt.id);
    }
  }
  return decisions;
}

export function toolStatus(call, result, view) {
  if (view.open.has(call.id)) return "streaming arguments…";
  if (view.interruptCalls.has(call.id)) return "waiting for approval";
  if (view.pendingIds.has(call.id)) return "waiting for the page";
  const decision = view.decisions?.get(call.id);
  const content = typeof result?.content === "string" ? result.content.trim() : null;
  if (decision === "cancelled" || content === CANCELLED_RESULT) return "cancelled";
  if (decision === "rejected" || REJECTED_RESULTS.has(content)) return "rejected";
  if (content === ABANDONED_RESULT) return "abandoned";
  if (result) return "done";
  return view.running ? "running…" : "abandoned";
}
