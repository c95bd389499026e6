import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { type FormEvent, useState } from "react";

/**
 * The chat: `useChat` against the agentloop handler at /api/chat, starting from the turns the store
 * holds (`initial`, loaded before the first render) and resuming a turn in progress after a reload.
 */
export function ChatPage({ chatId, initial }: { chatId: string; initial: UIMessage[] }) {
  const [input, setInput] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === "") return;
    void sendMessage({ text: input });
    setInput("");
  };
  return (
    <main>
      <h1>Weather agent</h1>
      {messages.map((message) => (
        <Message
          key={message.id}
          message={message}
          onDecide={(id, approved) => void addToolApprovalResponse({ id, approved })}
        />
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="How hot is Pune?"
        />
        <button type="submit" disabled={status === "streaming" || status === "submitted"}>
          Send
        </button>
      </form>
      <p className="status" data-status={status}>
        {status}
      </p>
    </main>
  );
}

function Message({ message, onDecide }: { message: UIMessage; onDecide: (id: string, approved: boolean) => void }) {
  return (
    <div className={`message ${message.role}`} data-role={message.role}>
      <div className="role">{message.role}</div>
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === "text") return <p key={key}>{part.text}</p>;
        if (!isToolUIPart(part)) return null;
        return (
          <div key={key} className="tool" data-state={part.state}>
            {part.type.replace(/^tool-/, "")}({JSON.stringify(part.input)}) — {part.state}
            {part.state === "approval-requested" && (
              <div>
                <button type="button" onClick={() => onDecide(part.approval.id, true)}>
                  Approve
                </button>
                <button type="button" onClick={() => onDecide(part.approval.id, false)}>
                  Deny
                </button>
              </div>
            )}
            {part.state === "output-available" && <div>→ {JSON.stringify(part.output)}</div>}
          </div>
        );
      })}
    </div>
  );
}
