// Tool results with media (AG-UI 1.0 content parts) and hosted tools at work (activities).
// Images show as pictures, documents as links; a link or picture is made only from inline
// data of an image type, an http(s) URL, or the server's media route (`/<agent>/media/<id>`):
// never from `javascript:` or any other scheme.

import { h, pretty } from "./render.js";

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;
const MEDIA_ROUTE = /^\/[A-Za-z0-9_\-/]+\/media\/[0-9a-f]{32}$/;

// The address a part may be shown from, or null.
export function safeMediaUrl(value) {
  if (typeof value !== "string") return null;
  if (MEDIA_ROUTE.test(value)) return value;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function imageSource(source) {
  if (!source) return null;
  if (source.type === "data") {
    return IMAGE_TYPES.test(source.mimeType ?? "") && /^[A-Za-z0-9+/=\s]*$/.test(source.value ?? "")
      ? `data:${source.mimeType};base64,${source.value}`
      : null;
  }
  return source.type === "url" ? safeMediaUrl(source.value) : null;
}

function documentLink(part, name) {
  const source = part.source ?? {};
  const href = source.type === "url" ? safeMediaUrl(source.value) : null;
  if (href) return h("a", { class: "document-link", href, target: "_blank", rel: "noopener noreferrer" }, `📄 ${name}`);
  const where = source.type === "file" ? `file ${source.value}` : source.mimeType ?? "inline";
  return h("span", { class: "chip attachment", "data-type": "document" }, `📄 ${name} (${where})`);
}

function partView(part) {
  if (!part || typeof part !== "object") return null;
  const name = part.metadata?.filename ?? part.type;
  switch (part.type) {
    case "text":
      return h("div", { class: "result-text" }, part.text ?? "");
    case "image": {
      const src = imageSource(part.source);
      if (src) return h("img", { class: "result-image", src, alt: part.metadata?.revisedPrompt ?? `Image ${name}` });
      return h("span", { class: "chip attachment", "data-type": "image" }, `🖼 ${name} (${part.source?.type ?? "?"} ${part.source?.value ?? ""})`);
    }
    case "document":
      return documentLink(part, name);
    default:
      return h("pre", {}, pretty(part));
  }
}

// A tool result's content parts, each as a person sees it.
export function resultPartsView(content) {
  return h("div", { class: "result-parts", "aria-label": "Result parts" }, content.map(partView));
}

// --- Activities: what a hosted tool is doing ------------------------------------------------

const STATUS_WORDS = {
  in_progress: "starting…",
  searching: "searching…",
  interpreting: "running code…",
  generating: "generating…",
  completed: "done",
  failed: "failed",
  incomplete: "stopped",
};

function sourcesList(sources) {
  const links = (sources ?? [])
    .map((source) => safeMediaUrl(source?.url))
    .filter(Boolean)
    .map((href) => h("li", {}, h("a", { href, target: "_blank", rel: "noopener noreferrer" }, href)));
  return links.length ? h("ul", { class: "activity-sources" }, links) : null;
}

function activityBody(type, content) {
  switch (type) {
    case "web_search":
      return [
        content.queries?.length ? h("div", { class: "activity-queries" }, `Queries: ${content.queries.join(" · ")}`) : null,
        sourcesList(content.sources),
      ];
    case "file_search":
      return content.queries?.length ? h("div", { class: "activity-queries" }, `Queries: ${content.queries.join(" · ")}`) : null;
    case "code_interpreter":
      return [
        content.code ? h("pre", { class: "activity-code" }, content.code) : null,
        (content.outputs ?? []).filter((o) => o?.type === "logs").map((o) => h("pre", { class: "activity-logs" }, o.logs)),
      ];
    case "image_generation": {
      const partial = content.partialImage;
      const src = partial ? imageSource({ type: "data", mimeType: partial.mimeType, value: partial.data }) : null;
      return src ? h("img", { class: "activity-image", src, alt: `Partial image ${partial.index + 1}`, "data-index": partial.index }) : null;
    }
    case "mcp_call":
      return [
        h("div", {}, `${content.serverLabel ?? "MCP"}: ${content.name ?? ""}`),
        content.output ? h("pre", {}, content.output) : null,
        content.error ? h("pre", { class: "activity-error" }, pretty(content.error)) : null,
      ];
    default:
      return h("pre", {}, pretty(content));
  }
}

// One activity message: its kind, its status in words, and what it holds so far.
export function activityView(message) {
  const content = message.content ?? {};
  const status = content.status ?? "";
  return h(
    "div",
    { class: "message activity", "data-id": message.id, "data-activity": message.activityType, "data-status": status, role: "status" },
    h("div", { class: "who" }, `Activity: ${message.activityType}`, " ", h("span", { class: "activity-status" }, STATUS_WORDS[status] ?? status)),
    activityBody(message.activityType, content),
  );
}
