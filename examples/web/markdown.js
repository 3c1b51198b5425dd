// Assistant text as Markdown: parsed by marked, then sanitised by DOMPurify before it reaches
// the page, so a model (or whatever it quotes) cannot run a script, load a remote resource or
// style the page. HTML written in the text is shown as text, not parsed: only the tags marked
// makes from Markdown get to DOMPurify. Both libraries are vendored in vendor/ (see
// vendor/README.md).

import { Marked } from "./vendor/marked.esm.js";
import DOMPurify from "./vendor/purify.es.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const markdown = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: { html: ({ text }) => escapeHtml(text) },
});

const SANITIZE = {
  USE_PROFILES: { html: true },
  // Nothing that loads, embeds, submits or styles: the page's CSP would block the loads anyway,
  // but an <img> pointing elsewhere would still be an attempt (and a console error).
  FORBID_TAGS: ["img", "picture", "source", "video", "audio", "iframe", "object", "embed", "form", "input", "button", "textarea", "select", "style", "link", "meta", "svg", "math"],
  FORBID_ATTR: ["style", "srcset"],
  ALLOW_DATA_ATTR: false,
};

// Links open in a new tab and tell the other site nothing about this page.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

// Markdown text to sanitised HTML.
export function markdownToHtml(text) {
  const html = markdown.parse(String(text ?? ""));
  return DOMPurify.sanitize(html, SANITIZE);
}

// A `.text.markdown` element holding the rendered text.
export function markdownBlock(text) {
  const block = document.createElement("div");
  block.className = "text markdown";
  block.innerHTML = markdownToHtml(text);
  return block;
}
