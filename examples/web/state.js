// Drawings of the shared state for the examples that keep one: the recipe of shared_state (a
// form the person edits, recipe.js), the plan of agentic_generative_ui, the itinerary of
// subgraphs and the document of predictive_state_updates. Each is drawn from whatever the
// state holds now (after every STATE_SNAPSHOT and STATE_DELTA); the raw JSON stays below it.

import { markdownBlock } from "./markdown.js";
import { recipeEditor } from "./recipe.js";
import { h } from "./render.js";

const list = (value) => (Array.isArray(value) ? value : []);

function recipeCard(recipe) {
  const meta = [recipe.cooking_time && `🕒 ${recipe.cooking_time}`, recipe.skill_level && `🏆 ${recipe.skill_level}`].filter(Boolean);
  return h(
    "section",
    { class: "state-card recipe-card", "aria-label": "Recipe" },
    h("h3", {}, recipe.title || "Recipe"),
    meta.length ? h("p", { class: "recipe-meta" }, meta.join(" · ")) : null,
    list(recipe.special_preferences).length
      ? h("p", { class: "recipe-preferences" }, list(recipe.special_preferences).map((p) => h("span", { class: "chip" }, p)))
      : null,
    h("h4", {}, "Ingredients"),
    h(
      "ul",
      { class: "recipe-ingredients", "aria-label": "Ingredients" },
      list(recipe.ingredients).map((item) => h("li", {}, `${item?.icon ?? "🍴"} ${item?.name ?? ""}`, item?.amount ? h("span", { class: "amount" }, ` ${item.amount}`) : null)),
    ),
    h("h4", {}, "Instructions"),
    h("ol", { class: "recipe-instructions", "aria-label": "Instructions" }, list(recipe.instructions).map((step) => h("li", {}, String(step)))),
  );
}

function planProgress(steps) {
  const done = steps.filter((step) => step?.status === "completed").length;
  const current = steps.findIndex((step) => step?.status !== "completed");
  return h(
    "section",
    { class: "state-card plan-progress", "aria-label": "Task progress" },
    h("h3", {}, "Task progress ", h("span", { class: "progress-count" }, `${done}/${steps.length} complete`)),
    h("progress", { max: steps.length || 1, value: done, "aria-label": "Steps completed" }),
    h(
      "ol",
      { class: "plan-steps" },
      steps.map((step, index) => {
        const status = step?.status === "completed" ? "completed" : index === current ? "current" : "pending";
        const mark = { completed: "✓", current: "…", pending: "○" }[status];
        return h("li", { class: `plan-step ${status}`, "data-status": status }, `${mark} ${step?.description ?? ""}`);
      }),
    ),
  );
}

const AGENTS = [["supervisor", "👨‍💼 Supervisor"], ["flights", "✈️ Flights"], ["hotels", "🏨 Hotels"], ["experiences", "🎯 Experiences"]];

function itinerary(state) {
  const trip = state.itinerary && typeof state.itinerary === "object" ? state.itinerary : {};
  const active = state.active_agent ?? "supervisor";
  return h(
    "section",
    { class: "state-card itinerary", "aria-label": "Itinerary" },
    h("h3", {}, "Itinerary"),
    h(
      "p",
      { class: "agents", "aria-label": "Active agent" },
      AGENTS.map(([key, label]) => h("span", { class: `chip agent${key === active ? " active" : ""}`, "aria-current": key === active ? "true" : null }, label)),
    ),
    h(
      "ul",
      { class: "trip" },
      h("li", { class: "trip-flight" }, "✈️ ", trip.flight ? `${trip.flight.airline} ${trip.flight.departure} → ${trip.flight.arrival}, ${trip.flight.price}` : "no flight yet"),
      h("li", { class: "trip-hotel" }, "🏨 ", trip.hotel ? `${trip.hotel.name}, ${trip.hotel.location}, ${trip.hotel.price_per_night}` : "no hotel yet"),
      h("li", { class: "trip-experiences" }, "🎯 ", list(state.experiences).length ? list(state.experiences).map((e) => e?.name).join(", ") : "no experiences yet"),
    ),
  );
}

// The document of predictive_state_updates, as Markdown (sanitised like assistant text).
function documentView(document) {
  return h(
    "section",
    { class: "state-card document", "aria-label": "Document" },
    h("h3", {}, "Document"),
    document.trim() ? markdownBlock(document) : h("p", { class: "hint" }, "Nothing written yet."),
  );
}

// The drawings that fit the state, or nothing for a state none of them knows. With
// `onRecipeEdit(recipe, redraw)` the recipe is a form the person edits (read-only when
// `running`); without it, a card.
export function stateViews(state, { onRecipeEdit = null, running = false } = {}) {
  if (!state || typeof state !== "object" || Array.isArray(state)) return [];
  const views = [];
  if (state.recipe && typeof state.recipe === "object") {
    const recipe = structuredClone(state.recipe);
    views.push(onRecipeEdit ? recipeEditor(recipe, { onEdit: onRecipeEdit, disabled: running }) : recipeCard(recipe));
  }
  if (Array.isArray(state.steps) && state.steps.length) views.push(planProgress(state.steps));
  if ("itinerary" in state || "active_agent" in state) views.push(itinerary(state));
  if (typeof state.document === "string") views.push(documentView(state.document));
  return views;
}
