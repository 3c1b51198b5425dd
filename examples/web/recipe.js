// The shared recipe of shared_state, as a form the person edits: title, skill level, cooking
// time, preferences, ingredients and steps (the choices of the Dojo's recipe page). Every edit
// changes the page's state at once, and the state goes out with the next request, so the agent
// works on the recipe as the person left it. The form is read-only while a run is streaming.

import { h } from "./render.js";

const SKILL_LEVELS = ["Beginner", "Intermediate", "Advanced"];
const COOKING_TIMES = ["5 min", "15 min", "30 min", "45 min", "60+ min"];
const PREFERENCES = ["High Protein", "Low Carb", "Spicy", "Budget-Friendly", "One-Pot Meal", "Vegetarian", "Vegan"];

const list = (value) => (Array.isArray(value) ? value : []);

// `edit(change, redraw)`: `change(recipe)` edits a copy of the recipe; `redraw` is true when the
// form's layout changes (a row added or removed), false for a value typed in place.
function controls(recipe, edit, disabled) {
  const typed = (change) => (event) => edit((r) => change(r, event.target.value), false);
  const select = (label, value, options, change) =>
    h("label", {}, h("span", {}, label), h("select", { "aria-label": label, disabled, onchange: typed(change) }, options.map((option) => h("option", { value: option, selected: option === value }, option))));
  return [
    h("label", { class: "recipe-title" }, h("span", {}, "Title"), h("input", { type: "text", "aria-label": "Recipe title", value: recipe.title ?? "", disabled, oninput: typed((r, v) => { r.title = v; }) })),
    h(
      "div",
      { class: "recipe-meta" },
      select("Skill level", recipe.skill_level, SKILL_LEVELS, (r, v) => { r.skill_level = v; }),
      select("Cooking time", recipe.cooking_time, COOKING_TIMES, (r, v) => { r.cooking_time = v; }),
    ),
    h(
      "fieldset",
      { class: "recipe-preferences" },
      h("legend", {}, "Preferences"),
      PREFERENCES.map((preference) => {
        const checked = list(recipe.special_preferences).includes(preference);
        const toggle = (r, on) => { r.special_preferences = on ? [...list(r.special_preferences), preference] : list(r.special_preferences).filter((p) => p !== preference); };
        return h("label", { class: "chip" }, h("input", { type: "checkbox", checked, disabled, onchange: (event) => edit((r) => toggle(r, event.target.checked), false) }), ` ${preference}`);
      }),
    ),
  ];
}

function ingredientRows(recipe, edit, disabled) {
  const rows = list(recipe.ingredients).map((item, index) => {
    const field = (key, label, size) =>
      h("input", { type: "text", "aria-label": `Ingredient ${index + 1} ${label}`, value: item?.[key] ?? "", size, disabled, oninput: (event) => edit((r) => { r.ingredients[index] = { ...r.ingredients[index], [key]: event.target.value }; }, false) });
    const remove = () => edit((r) => { r.ingredients.splice(index, 1); }, true);
    return h("li", {}, field("icon", "icon", 2), field("name", "name", 14), field("amount", "amount", 10), h("button", { type: "button", class: "secondary", "aria-label": `Remove ingredient ${index + 1}`, disabled, onclick: remove }, "✕"));
  });
  const add = () => edit((r) => { r.ingredients = [...list(r.ingredients), { icon: "🍴", name: "", amount: "" }]; }, true);
  return [h("ol", { class: "recipe-ingredients", "aria-label": "Ingredients" }, rows), h("button", { type: "button", class: "secondary", disabled, onclick: add }, "Add ingredient")];
}

function instructionRows(recipe, edit, disabled) {
  const rows = list(recipe.instructions).map((step, index) =>
    h(
      "li",
      {},
      h("textarea", { rows: 1, "aria-label": `Step ${index + 1}`, disabled, oninput: (event) => edit((r) => { r.instructions[index] = event.target.value; }, false) }, String(step ?? "")),
      h("button", { type: "button", class: "secondary", "aria-label": `Remove step ${index + 1}`, disabled, onclick: () => edit((r) => { r.instructions.splice(index, 1); }, true) }, "✕"),
    ),
  );
  const add = () => edit((r) => { r.instructions = [...list(r.instructions), ""]; }, true);
  return [h("ol", { class: "recipe-instructions", "aria-label": "Instructions" }, rows), h("button", { type: "button", class: "secondary", disabled, onclick: add }, "Add step")];
}

// The recipe card as a form. `onEdit(recipe, redraw)` receives the whole edited recipe.
export function recipeEditor(recipe, { onEdit, disabled }) {
  const edit = (change, redraw) => {
    const copy = structuredClone(recipe);
    copy.ingredients = list(copy.ingredients);
    copy.instructions = list(copy.instructions);
    change(copy);
    Object.assign(recipe, copy); // later edits in this form start from this one
    onEdit(copy, redraw);
  };
  return h(
    "section",
    { class: "state-card recipe-card editable", "aria-label": "Recipe" },
    h("h3", {}, recipe.title || "Recipe"),
    h("p", { class: "hint" }, disabled ? "The agent is working on the recipe…" : "Edit the recipe: the agent sees your changes with your next message."),
    controls(recipe, edit, disabled),
    h("h4", {}, "Ingredients"),
    ingredientRows(recipe, edit, disabled),
    h("h4", {}, "Instructions"),
    instructionRows(recipe, edit, disabled),
  );
}
