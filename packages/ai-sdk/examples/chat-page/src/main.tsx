import { createRoot } from "react-dom/client";
import { ChatPage } from "./chat-page.js";

// One chat per tab: its id is kept in the address, so that a reload resumes the same chat.
const url = new URL(window.location.href);
const chatId = url.searchParams.get("chat") ?? crypto.randomUUID();
if (!url.searchParams.has("chat")) {
  url.searchParams.set("chat", chatId);
  window.history.replaceState(null, "", url);
}

createRoot(document.getElementById("root") as HTMLElement).render(<ChatPage chatId={chatId} />);
