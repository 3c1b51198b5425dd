// A small A2UI v0.9 renderer for the page: it paints the surfaces an operations envelope
// ({"a2ui_operations": [createSurface, updateComponents, updateDataModel]}) describes, as the
// A2UI middleware would, for the components of the Dojo's catalogs (Row, Column, Card, Text,
// Button, FlightCard, HotelCard, ProductCard, TeamMemberCard, StarRating). Values are literals
// or data bindings ({"path": "/absolute"} or {"path": "relative"} inside a repeated template);
// children are a list of ids or a template repeated over a data list. Anything else is drawn as
// an "unknown component" box with its JSON. Images are never loaded (the page talks to its own
// server only). Clicking a card's button marks it chosen and reports the action as the
// middleware does: a `log_a2ui_event` call and its result in the history, then a new run.
// A failed generation ({"code": "a2ui_recovery_exhausted"}) is drawn as a failure notice.

import { h, parseJson, pretty } from "./render.js";

const chosen = new Set(); // "<surface id> <data scope>" of the cards whose button was clicked

// The surfaces of an envelope, by id: {catalogId, components (by id), data}.
export function surfacesOf(operations) {
  const surfaces = new Map();
  const surface = (id) => {
    if (!surfaces.has(id)) surfaces.set(id, { id, catalogId: null, components: new Map(), data: {} });
    return surfaces.get(id);
  };
  for (const op of operations) {
    if (op?.createSurface) surface(op.createSurface.surfaceId).catalogId = op.createSurface.catalogId ?? null;
    if (op?.updateComponents) {
      const target = surface(op.updateComponents.surfaceId);
      for (const component of op.updateComponents.components ?? []) target.components.set(component.id, component);
    }
    if (op?.updateDataModel) {
      const target = surface(op.updateDataModel.surfaceId);
      const path = op.updateDataModel.path ?? "/";
      if (path === "/" || path === "") target.data = structuredClone(op.updateDataModel.value ?? {});
      else setPointer(target.data, path, structuredClone(op.updateDataModel.value));
    }
    if (op?.deleteSurface) surfaces.delete(op.deleteSurface.surfaceId);
  }
  return surfaces;
}

const segments = (pointer) => pointer.split("/").filter(Boolean).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

function getPointer(data, pointer) {
  return segments(pointer).reduce((node, key) => (node == null ? undefined : node[key]), data);
}

function setPointer(data, pointer, value) {
  const keys = segments(pointer);
  const last = keys.pop();
  let node = data;
  for (const key of keys) node = node[key] ??= {};
  node[last] = value;
}

// A property's value: a literal, or the data a binding points at (relative to `scope`).
function resolve(value, surface, scope) {
  if (value && typeof value === "object" && typeof value.path === "string") {
    const pointer = value.path.startsWith("/") ? value.path : `${scope}/${value.path}`;
    return getPointer(surface.data, pointer);
  }
  if (value && typeof value === "object" && "literalString" in value) return value.literalString;
  return value;
}

const text = (value) => (value === undefined || value === null ? "" : typeof value === "object" ? pretty(value) : String(value));

function stars(value) {
  const rating = Number(value);
  if (!Number.isFinite(rating)) return text(value);
  const full = Math.round(Math.max(0, Math.min(5, rating)));
  return `${"★".repeat(full)}${"☆".repeat(5 - full)} ${rating}`;
}

// A button for `action` ({event: {name, context}}, its context already resolved): clicked once.
function actionButton(label, done, action, where) {
  const key = `${where.surface.id} ${where.scope} ${where.id}`;
  const clicked = chosen.has(key);
  const attributes = { type: "button", class: "a2ui-action", "data-action": action?.event?.name ?? null, disabled: clicked };
  const button = h("button", attributes, clicked ? done : label);
  button.addEventListener("click", () => {
    chosen.add(key);
    button.textContent = done;
    button.disabled = true;
    button.closest(".a2ui-card")?.classList.add("chosen");
    where.onAction?.({ name: action?.event?.name ?? "action", surfaceId: where.surface.id, sourceComponentId: where.id, context: action?.event?.context ?? {} });
  });
  return button;
}

function card(kind, label, lines, props, [buttonLabel, doneLabel]) {
  const where = props.where;
  const clicked = chosen.has(`${where.surface.id} ${where.scope} ${where.id}`);
  return h(
    "div",
    { class: `a2ui-card a2ui-${kind}${clicked ? " chosen" : ""}`, role: "group", "aria-label": label },
    h("div", { class: "a2ui-card-title" }, label),
    lines.filter(([, value]) => value !== "").map(([name, value]) => h("div", { class: `a2ui-line a2ui-${name}` }, value)),
    props.action ? actionButton(buttonLabel, doneLabel, props.action, where) : null,
  );
}

const CARDS = {
  FlightCard: (p) =>
    card("flight", `${p.airline} ${p.flightNumber}`, [
      ["route", `${text(p.origin)} → ${text(p.destination)}`],
      ["date", text(p.date)],
      ["times", `${text(p.departureTime)} – ${text(p.arrivalTime)} (${text(p.duration)})`],
      ["status", text(p.status)],
      ["price", text(p.price)],
    ], p, ["Select", "Selected"]),
  HotelCard: (p) =>
    card("hotel", text(p.name), [
      ["location", text(p.location)],
      ["rating", stars(p.rating)],
      ["price", text(p.pricePerNight)],
      ["amenities", text(p.amenities)],
    ], p, ["Book", "Booked"]),
  ProductCard: (p) =>
    card("product", text(p.name), [
      ["badge", text(p.badge)],
      ["price", text(p.price)],
      ["rating", stars(p.rating)],
      ["description", text(p.description)],
    ], p, ["Select", "Selected"]),
  TeamMemberCard: (p) =>
    card("person", text(p.name), [
      ["role", text(p.role)],
      ["department", text(p.department)],
      ["email", text(p.email)],
    ], p, ["Contact", "Contacted"]),
  StarRating: (p) => h("span", { class: "a2ui-stars" }, `${p.label ? `${text(p.label)} ` : ""}${stars(p.value)}`),
  Text: (p) => h("p", { class: `a2ui-text ${p.variant ?? p.usageHint ?? ""}` }, text(p.text)),
};

const LAYOUTS = { Row: "a2ui-row", Column: "a2ui-column", List: "a2ui-column", Card: "a2ui-box" };
const BOUND = new Set(["children", "child", "action", "id", "component", "accessibility", "weight"]);

function childrenOf(component, surface, scope, depth, onAction) {
  const children = component.children ?? (component.child ? [component.child] : []);
  if (Array.isArray(children)) return children.map((id) => paint(id, surface, scope, depth + 1, onAction));
  if (children && typeof children === "object" && typeof children.componentId === "string") {
    const listPath = children.path?.startsWith("/") ? children.path : `${scope}/${children.path ?? ""}`;
    const items = getPointer(surface.data, listPath);
    return Array.isArray(items) ? items.map((_, index) => paint(children.componentId, surface, `${listPath}/${index}`, depth + 1, onAction)) : [];
  }
  return [];
}

// The action with its context's bindings resolved, as the middleware reports it.
function resolvedAction(action, surface, scope) {
  const event = action?.event;
  if (!event || typeof event !== "object") return action ?? null;
  const context = Object.fromEntries(Object.entries(event.context ?? {}).map(([key, value]) => [key, resolve(value, surface, scope)]));
  return { event: { name: event.name, context } };
}

function paint(id, surface, scope, depth = 0, onAction = null) {
  const component = surface.components.get(id);
  if (!component || depth > 20) return h("div", { class: "a2ui-unknown" }, `Missing component “${id}”`);
  const props = { where: { surface, scope, id, onAction } };
  for (const [key, value] of Object.entries(component)) props[key] = BOUND.has(key) ? value : resolve(value, surface, scope);
  props.action = resolvedAction(component.action, surface, scope);
  if (component.component in LAYOUTS) {
    const style = component.gap ? { "data-gap": component.gap } : {};
    return h("div", { class: LAYOUTS[component.component], ...style }, childrenOf(component, surface, scope, depth, onAction));
  }
  if (component.component === "Button") {
    const label = childrenOf(component, surface, scope, depth, onAction)[0]?.textContent ?? "OK";
    return actionButton(label, "Done", props.action, props.where);
  }
  const draw = CARDS[component.component];
  if (draw) return draw(props);
  return h("div", { class: "a2ui-unknown" }, `Unknown component ${component.component}`, h("pre", {}, pretty(component)));
}

function surfaceView(surface, onAction) {
  return h(
    "section",
    { class: "a2ui-surface", "data-surface-id": surface.id, "aria-label": `Surface ${surface.id}` },
    surface.components.has("root") ? paint("root", surface, "", 0, onAction) : h("p", { class: "hint" }, "No root component yet."),
  );
}

function failureView(failure) {
  const attempts = Array.isArray(failure.attempts) ? failure.attempts : [];
  return h(
    "section",
    { class: "a2ui-failed", role: "alert", "aria-label": "Surface failed" },
    h("p", {}, `The interface could not be built: ${failure.error ?? "generation failed"}.`),
    h(
      "ul",
      {},
      attempts.map((attempt) =>
        h("li", {}, `Attempt ${attempt.attempt}: ${(attempt.errors ?? []).map((e) => e.message).join("; ") || "no surface"}`),
      ),
    ),
  );
}

// The drawing of a tool result that is an A2UI envelope or a failed generation, else null.
// `onAction({name, surfaceId, sourceComponentId, context})` is called when a button is clicked.
export function a2uiResultView(content, onAction = null) {
  const parsed = parseJson(content).value;
  if (!parsed || typeof parsed !== "object") return null;
  if (parsed.code === "a2ui_recovery_exhausted") return failureView(parsed);
  if (!Array.isArray(parsed.a2ui_operations)) return null;
  return h("div", { class: "a2ui" }, [...surfacesOf(parsed.a2ui_operations).values()].map((surface) => surfaceView(surface, onAction)));
}

// ---- checking a generated surface, as the middleware does before it paints one ------------

function childRefs(component) {
  const refs = [];
  const push = (value) => {
    if (typeof value === "string") refs.push(value);
    else if (value && typeof value === "object" && typeof value.componentId === "string") refs.push(value.componentId);
  };
  push(component.child);
  if (Array.isArray(component.children)) component.children.forEach(push);
  else push(component.children);
  return refs;
}

// The errors of a render_a2ui call's arguments ({components, data}), in the A2UI toolkit's
// words: no components, a component without id or type, duplicate ids, no root, a child
// reference that names no component. An empty list means the surface can be painted.
export function surfaceErrors(args) {
  const components = Array.isArray(args?.components) ? args.components : [];
  if (!components.length) return ["A2UI components must be a non-empty array"];
  const errors = [];
  const ids = new Set();
  components.forEach((component, index) => {
    if (typeof component?.id !== "string") errors.push(`Component at index ${index} is missing a string 'id'`);
    else if (ids.has(component.id)) errors.push(`Duplicate component id '${component.id}'`);
    else ids.add(component.id);
    if (typeof component?.component !== "string") errors.push(`Component at index ${index} is missing a string 'component' type`);
  });
  for (const component of components) {
    for (const ref of childRefs(component ?? {})) {
      if (!ids.has(ref)) errors.push(`Child reference '${ref}' does not match any component id`);
    }
  }
  if (!ids.has("root")) errors.push("No component has id 'root'");
  return errors;
}

// One render_a2ui attempt of a generate_a2ui call: its number and whether its surface holds.
export function attemptView(call, number, streaming) {
  const args = parseJson(call.function.arguments);
  if (streaming || !args.ok) return h("p", { class: "a2ui-attempt hint" }, `Attempt ${number}: being written…`);
  const errors = surfaceErrors(args.value);
  if (!errors.length) {
    return h("p", { class: "a2ui-attempt valid", "data-valid": "true" }, `Attempt ${number}: valid, painted.`);
  }
  return h(
    "div",
    { class: "a2ui-attempt invalid", role: "group", "aria-label": `Attempt ${number} failed`, "data-valid": "false" },
    h("p", {}, `Attempt ${number}: invalid.`),
    h("ul", {}, errors.map((error) => h("li", {}, error))),
  );
}
