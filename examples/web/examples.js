// What the page adds to each example: a prompt to try, the tools the page itself owns
// (declared in RunAgentInput.tools and answered from the page), and the context it sends.
// An example the server lists but this file does not know still works as a plain chat.

export const TASK_STEPS_TOOL = {
  name: "generate_task_steps",
  description: "Show the user a list of steps to review before carrying out a task.",
  parameters: {
    type: "object",
    properties: {
      steps: {
        type: "array",
        items: {
          type: "object",
          properties: {
            description: { type: "string" },
            status: { type: "string", enum: ["enabled", "disabled"] },
          },
          required: ["description", "status"],
        },
      },
    },
    required: ["steps"],
  },
};

export const HAIKU_TOOL = {
  name: "generate_haiku",
  description: "Display a haiku card: Japanese lines, their English translation, a picture.",
  parameters: {
    type: "object",
    properties: {
      japanese: { type: "array", items: { type: "string" } },
      english: { type: "array", items: { type: "string" } },
      image_name: { type: "string" },
    },
    required: ["japanese", "english", "image_name"],
  },
};

export const PAGE_EXAMPLES = {
  ag_ui_docs_copilot: { prompt: "What does the README say about shared state?" },
  agentic_chat: { prompt: "Say hello in one sentence." },
  backend_tool_rendering: { prompt: "What's the weather in Paris?" },
  human_in_the_loop: { prompt: "Plan the steps to bake a cake", tools: [TASK_STEPS_TOOL] },
  human_in_the_loop_approval: { prompt: "Please refund 30 dollars on order A-17" },
  tool_based_generative_ui: { prompt: "Write a haiku about autumn leaves", tools: [HAIKU_TOOL] },
  subagents: { prompt: "Write a short article about the history of AI" },
  custom_lifecycle_events: { prompt: "Count the words in: the quick brown fox" },
  dynamic_system_prompt: {
    prompt: "Who am I?",
    context: [
      { description: "User name", value: "Ada" },
      { description: "Reply language", value: "French" },
    ],
  },
};

export function pageConfig(name) {
  const known = PAGE_EXAMPLES[name] ?? {};
  return { prompt: known.prompt ?? null, tools: known.tools ?? [], context: known.context ?? [] };
}
