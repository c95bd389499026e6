import { describe, expect, it } from "vitest";
import { questionForm } from "./question-form.js";

describe("questionForm", () => {
  it("asks a flat object's fields as they are, keeping only what a form field can say", () => {
    const form = questionForm({
      id: "q1",
      question: "Where?",
      schema: {
        type: "object",
        properties: { city: { type: "string", pattern: "^[A-Z]" }, go: { type: "boolean", description: "Go?" } },
        required: ["city"],
      },
    });
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" }, go: { type: "boolean", description: "Go?" } },
      required: ["city"],
    });
    expect(form.answerOf({ city: "Lima", go: true })).toEqual({ city: "Lima", go: true });
  });

  it("asks a primitive answer as the one field `answer` and takes its value", () => {
    const form = questionForm({ id: "q1", question: "Which?", schema: { type: "string", enum: ["a", "b"] } });
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string", enum: ["a", "b"] } },
      required: ["answer"],
    });
    expect(form.answerOf({ answer: "b" })).toBe("b");
  });

  it("asks a nested shape as text, read as JSON when it parses and as the text otherwise", () => {
    const form = questionForm({
      id: "q1",
      question: "Stops?",
      schema: { type: "object", properties: { stops: { type: "array", items: { type: "string" } } } },
    });
    expect(form.requestedSchema.properties.answer).toMatchObject({ type: "string" });
    expect(form.answerOf({ answer: '{"stops":["Lima"]}' })).toEqual({ stops: ["Lima"] });
    expect(form.answerOf({ answer: "Lima" })).toBe("Lima");
  });
});
