import type { UIMessage } from "ai";
import { createRoot } from "react-dom/client";
import { ChatPage } from "./chat-page.js";

// One chat per tab: its id is kept in the address, so that a reload resumes the same chat.
const url = new URL(window.location.href);
const chatId = url.searchParams.get("chat") ?? crypto.randomUUID();
if (!url.searchParams.has("chat")) {
  url.searchParams.set("chat", chatId);
  window.history.replaceState(null, "", url);
}

// The earlier turns come from the store's log (chatHandler's GET <api>/<chat id>/messages, `loadChat`).
void fetch(`/api/chat/${encodeURIComponent(chatId)}/messages`)
  .then(async (loaded): Promise<UIMessage[]> => (loaded.ok ? await loaded.json() : []))
  .then((initial) => {
    createRoot(document.getElementById("root") as HTMLElement).render(
      <ChatPage chatId={chatId} initial={initial} title={document.title} />,
    );
  });
