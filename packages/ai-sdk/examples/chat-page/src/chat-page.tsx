import type { QuestionData } from "@agentloop/ai-sdk";
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from "ai";
import { type FormEvent, useState } from "react";

/**
 * The chat: `useChat` against the agentloop handler at /api/chat, starting from the turns the store
 * holds (`initial`, loaded before the first render) and resuming a turn in progress after a reload.
 * While the run waits for the user (a call to approve, a question to answer), Send is disabled: the
 * server refuses a new message then, and the decision is what lets the run go on.
 */
export function ChatPage({ chatId, initial, title }: { chatId: string; initial: UIMessage[]; title: string }) {
  const [input, setInput] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, addToolOutput, status, error } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    // An approval given, or a question answered (`ask_user` is a client-side tool's call): post it.
    sendAutomaticallyWhen: (options) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
      lastAssistantMessageIsCompleteWithToolCalls(options),
  });
  const waiting = waitsForUser(messages);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === "" || waiting) return;
    void sendMessage({ text: input });
    setInput("");
  };
  return (
    <main>
      <h1>{title}</h1>
      {messages.map((message) => (
        <Message
          key={message.id}
          message={message}
          onDecide={(id, approved) => void addToolApprovalResponse({ id, approved })}
          onAnswer={(toolCallId, output) => void addToolOutput({ tool: "ask_user", toolCallId, output })}
        />
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Write a message"
        />
        <button type="submit" disabled={waiting || status === "streaming" || status === "submitted"}>
          Send
        </button>
      </form>
      {waiting && <p className="waiting">The agent waits for you: decide on the call or answer the question above.</p>}
      <p className="status" data-status={status}>
        {status}
      </p>
    </main>
  );
}

/** Whether the last assistant message waits for the user: a call in `approval-requested`, or a question not yet answered. */
function waitsForUser(messages: readonly UIMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return false;
  return last.parts.some(
    (part) =>
      isToolUIPart(part) &&
      (part.state === "approval-requested" ||
        (part.state === "input-available" && (part.type === "tool-ask_user" || askedIn(last, part.toolCallId)))),
  );
}

/** Whether a tool asked a question while its call `toolCallId` ran (a `data-question` part of the message). */
function askedIn(message: UIMessage, toolCallId: string): boolean {
  return message.parts.some((part) => part.type === "data-question" && part.id === toolCallId);
}

interface MessageProps {
  message: UIMessage;
  onDecide: (id: string, approved: boolean) => void;
  onAnswer: (toolCallId: string, answer: string) => void;
}

function Message({ message, onDecide, onAnswer }: MessageProps) {
  return (
    <div className={`message ${message.role}`} data-role={message.role}>
      <div className="role">{message.role}</div>
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === "text") return <p key={key}>{part.text}</p>;
        if (part.type === "data-question") {
          // A question a tool asked while it ran: shown while its call waits, answered on that call.
          const { toolCallId, question } = part.data as QuestionData;
          const waits = message.parts.some(
            (other) => isToolUIPart(other) && other.toolCallId === toolCallId && other.state === "input-available",
          );
          if (!waits) return null;
          return <Question key={key} question={question} onAnswer={(answer) => onAnswer(toolCallId, answer)} />;
        }
        if (!isToolUIPart(part)) return null;
        // A call whose tool asked a question waits for it: the question above is what is shown.
        if (askedIn(message, part.toolCallId) && part.state === "input-available") return null;
        if (part.type === "tool-ask_user" && part.state === "input-available") {
          const { question } = part.input as { question: string };
          return <Question key={key} question={question} onAnswer={(answer) => onAnswer(part.toolCallId, answer)} />;
        }
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

/** A question the agent asks: answered on the page, the answer goes back as the tool's output. */
function Question({ question, onAnswer }: { question: string; onAnswer: (answer: string) => void }) {
  const [answer, setAnswer] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (answer.trim() !== "") onAnswer(answer);
  };
  return (
    <form className="question" onSubmit={submit}>
      <label>
        {question} <input aria-label="Answer" value={answer} onChange={(event) => setAnswer(event.target.value)} />
      </label>
      <button type="submit">Answer</button>
    </form>
  );
}
