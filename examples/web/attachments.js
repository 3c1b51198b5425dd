// Files attached to a message, sent as CopilotKit's chat sends them: after the text, one
// content part per file with its data inline (base64) and its name in the metadata.

import { h } from "./render.js";

export const MAX_FILE_BYTES = 8 * 1024 * 1024; // Under the multimodal route's request limit.

function modality(mimeType) {
  const top = (mimeType || "").split("/")[0];
  return ["image", "audio", "video"].includes(top) ? top : "document";
}

function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] ?? "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export async function fileToPart(file) {
  if (file.size > MAX_FILE_BYTES) throw new Error(`${file.name} is larger than ${MAX_FILE_BYTES / (1024 * 1024)} MB.`);
  const mimeType = file.type || "application/octet-stream";
  return { type: modality(mimeType), source: { type: "data", value: await readBase64(file), mimeType }, metadata: { filename: file.name } };
}

// The message content: the text alone, or the text then the files.
export function messageContent(text, parts) {
  return parts.length ? [{ type: "text", text }, ...parts] : text;
}

// How a user message's files look in the conversation: images as pictures, others by name.
export function attachmentViews(content) {
  if (!Array.isArray(content)) return [];
  return content
    .filter((part) => part && part.type !== "text")
    .map((part) => {
      const name = part.metadata?.filename ?? part.type;
      const source = part.source ?? {};
      if (part.type === "image" && source.type === "data" && /^image\/(png|jpeg|gif|webp)$/.test(source.mimeType ?? "")) {
        return h("img", { class: "attachment-image", src: `data:${source.mimeType};base64,${source.value}`, alt: `Attached image ${name}` });
      }
      return h("span", { class: "chip attachment", "data-type": part.type }, `📎 ${name}${source.mimeType ? ` (${source.mimeType})` : ""}`);
    });
}

// The composer's attach button, its hidden file input and the list of files waiting to go.
export function attachmentPicker({ button, input, list, onError }) {
  let parts = [];
  const show = () => {
    list.replaceChildren(
      ...parts.map((part, index) =>
        h("li", {}, `📎 ${part.metadata.filename}`, " ", h("button", { type: "button", class: "link", "aria-label": `Remove ${part.metadata.filename}`, onclick: () => { parts.splice(index, 1); show(); } }, "×")),
      ),
    );
  };
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    for (const file of input.files ?? []) {
      try {
        parts.push(await fileToPart(file));
      } catch (error) {
        onError(error.message);
      }
    }
    input.value = "";
    show();
  });
  return {
    take() {
      const taken = parts;
      parts = [];
      show();
      return taken;
    },
    setEnabled(enabled) {
      button.hidden = !enabled;
      if (!enabled) {
        parts = [];
        show();
      }
    },
  };
}
