import type { PendingQuestion } from "@agentloop/core";
import type { ElicitRequestFormParams, PrimitiveSchemaDefinition } from "@modelcontextprotocol/server";

/** The form an MCP elicitation asks a question with, and how the form's content becomes the answer. */
export interface QuestionForm {
  readonly message: string;
  readonly requestedSchema: ElicitRequestFormParams["requestedSchema"];
  /** The answer the accepted form's content stands for (checked against the question's shape on resume). */
  answerOf(content: Readonly<Record<string, unknown>>): unknown;
}

const PRIMITIVE = new Set(["string", "number", "integer", "boolean"]);
/** What an elicitation form's field may say of itself; anything else of the question's shape is checked on resume. */
const FIELD_KEYS = [
  "type",
  "title",
  "description",
  "enum",
  "enumNames",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "default",
];

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The form for `question`. An elicitation form is a flat object of primitive fields: an answer
 * shaped so is asked field by field; a primitive answer is asked as the one field `answer`; any
 * other shape (nested, arrays) or none is asked as the text field `answer`, read as JSON when it
 * parses as JSON and as the text itself otherwise, as the CLI's `--answer` reads it.
 */
export function questionForm(question: PendingQuestion): QuestionForm {
  const { question: message, schema } = question;
  const fields = isObject(schema) && schema.type === "object" && isObject(schema.properties) ? schema.properties : null;
  if (fields !== null && Object.values(fields).every(isPrimitive)) {
    const properties = Object.fromEntries(
      Object.entries(fields).map(([name, field]) => [name, fieldOf(field as Json)]),
    );
    const required = Array.isArray(schema?.required) ? schema.required.filter((name) => typeof name === "string") : [];
    return {
      message,
      requestedSchema: { type: "object", properties, ...(required.length === 0 ? {} : { required }) },
      answerOf: (content) => ({ ...content }),
    };
  }
  if (isPrimitive(schema)) {
    return {
      message,
      requestedSchema: { type: "object", properties: { answer: fieldOf(schema) }, required: ["answer"] },
      answerOf: (content) => content.answer,
    };
  }
  const answer = {
    type: "string",
    description: "The answer: JSON when it has a shape of its own, else plain text.",
  } as PrimitiveSchemaDefinition;
  return {
    message,
    requestedSchema: { type: "object", properties: { answer }, required: ["answer"] },
    answerOf: (content) => parsed(content.answer),
  };
}

function isPrimitive(field: unknown): field is Json {
  return isObject(field) && typeof field.type === "string" && PRIMITIVE.has(field.type);
}

function fieldOf(field: Json): PrimitiveSchemaDefinition {
  return Object.fromEntries(
    FIELD_KEYS.filter((key) => key in field).map((key) => [key, field[key]]),
  ) as PrimitiveSchemaDefinition;
}

function parsed(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
