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

export const CHANGE_BACKGROUND_TOOL = {
  name: "change_background",
  description: "Change the background color of the chat. Can be anything that the CSS background attribute accepts. Regular colors, linear or radial gradients etc.",
  parameters: {
    type: "object",
    properties: { background: { type: "string", description: "The background. Prefer gradients." } },
    required: ["background"],
  },
};

// The document editor's frontend tools: both are drawn as Confirm / Reject.
export const CONFIRM_CHANGES_TOOL = {
  name: "confirm_changes",
  description: "Ask the user to accept or reject the changes write_document_local made to the document.",
  parameters: { type: "object", properties: {} },
};

export const WRITE_DOCUMENT_TOOL = {
  name: "write_document",
  description: "Present the proposed changes to the user for review",
  parameters: {
    type: "object",
    properties: { document: { type: "string", description: "The full updated document in markdown format" } },
    required: ["document"],
  },
};

// What @ag-ui/a2ui-middleware (injectA2UITool) adds to each request of the A2UI pages: the
// flag, its render tool, how to call it and the components the page can draw.
export const A2UI_MARKS = {
  forwardedProps: { injectA2UITool: true },
  tools: [
    {
      name: "render_a2ui",
      description: "Render a dynamic A2UI v0.9 surface with structured parameters. Follow the A2UI render tool usage guide provided in context.",
      parameters: {
        type: "object",
        properties: { surfaceId: { type: "string" }, components: { type: "array", items: { type: "object" } }, data: { type: "object" } },
        required: ["surfaceId", "components"],
      },
    },
  ],
  context: [
    { description: "A2UI render tool usage guide — how to call render_a2ui with valid arguments.", value: 'The root component must have id "root"; repeat a card over a data list with {"componentId", "path"} children.' },
    {
      description: "A2UI Component Schema — available components for generating UI surfaces. Use these component names and properties when creating A2UI operations.",
      value: JSON.stringify({
        components: {
          Row: { properties: { children: {}, gap: { type: "number" } } },
          HotelCard: { properties: { name: {}, location: {}, rating: {}, pricePerNight: {}, action: {} } },
          ProductCard: { properties: { name: {}, price: {}, rating: {}, description: {}, action: {} } },
          TeamMemberCard: { properties: { name: {}, role: {}, department: {}, email: {}, action: {} } },
        },
      }),
    },
  ],
};

// The states the Dojo's pages start from.
export const RECIPE_STATE = {
  recipe: {
    title: "Make Your Recipe",
    skill_level: "Intermediate",
    cooking_time: "45 min",
    special_preferences: [],
    ingredients: [
      { icon: "🥕", name: "Carrots", amount: "3 large, grated" },
      { icon: "🌾", name: "All-Purpose Flour", amount: "2 cups" },
    ],
    instructions: ["Preheat oven to 350°F (175°C)"],
  },
};

export const TRAVEL_STATE = { itinerary: {}, experiences: [], flights: [], hotels: [], planning_step: "start", active_agent: "supervisor" };

export const PAGE_EXAMPLES = {
  ag_ui_docs_copilot: { prompt: "What does the README say about shared state?" },
  agentic_chat: { prompt: "Say hello in one sentence." },
  backend_tool_rendering: { prompt: "What's the weather in Paris?" },
  media_results: { prompt: "Draw a chart of monthly sales, then ask for a picture of a sunset." },
  human_in_the_loop: { prompt: "Plan the steps to bake a cake", tools: [TASK_STEPS_TOOL] },
  human_in_the_loop_approval: { prompt: "Please refund 30 dollars on order A-17" },
  tool_based_generative_ui: { prompt: "Write a haiku about autumn leaves", tools: [HAIKU_TOOL] },
  subagents: { prompt: "Write a short article about the history of AI" },
  custom_lifecycle_events: { prompt: "Count the words in: the quick brown fox" },
  agentic_chat_reasoning: { prompt: "What is the best car to buy? Explain step by step.", tools: [CHANGE_BACKGROUND_TOOL] },
  agentic_chat_multimodal: { prompt: "Describe what you see in the image I upload.", tools: [CHANGE_BACKGROUND_TOOL], attachments: true },
  agentic_generative_ui: { prompt: "Please build a plan to go to mars in 5 steps." },
  shared_state: { prompt: "Create a delicious Italian pasta recipe.", state: RECIPE_STATE },
  subgraphs: { prompt: "Plan a trip to San Francisco", state: TRAVEL_STATE },
  predictive_state_updates: {
    prompt: "Please write a story about a pirate named Candy Beard.",
    tools: [WRITE_DOCUMENT_TOOL, CONFIRM_CHANGES_TOOL],
    state: { document: "" },
  },
  a2ui_fixed_schema: { prompt: "Find flights from SFO to JFK for next Tuesday." },
  a2ui_dynamic_schema: { prompt: "Compare 3 luxury hotels in different cities with ratings and prices.", ...A2UI_MARKS },
  a2ui_recovery: { prompt: "Compare 3 luxury hotels with ratings and prices.", ...A2UI_MARKS },
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
  return {
    prompt: known.prompt ?? null,
    tools: known.tools ?? [],
    context: known.context ?? [],
    state: known.state ?? {},
    attachments: known.attachments ?? false,
    forwardedProps: known.forwardedProps ?? {},
  };
}
