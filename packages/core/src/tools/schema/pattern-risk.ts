/** One piece of a parsed pattern, with how often it may repeat. */
interface Item {
  readonly atom: Atom;
  readonly min: number;
  readonly max: number;
  /** Where the item starts and ends in the pattern's source. */
  readonly span: readonly [number, number];
}
type Atom =
  | { readonly kind: "char"; readonly char: string }
  | { readonly kind: "set"; readonly source: string }
  | { readonly kind: "zero-width" }
  | { readonly kind: "backreference" }
  | { readonly kind: "group"; readonly branches: readonly (readonly Item[])[] };

/** A repetition of more than this many times counts as unbounded: its backtracking grows as fast. */
const MANY = 10;

/**
 * The part of an ECMAScript pattern (valid with the `u` flag) whose check can take exponential
 * time in a backtracking engine, or null: a group repeated without bound whose body can match the
 * same text in more than one way across its repetitions, because it holds another repetition
 * (`(a+)+`, `(\w+\s?)*`) or alternatives (`(a|aa)*`). Such a group is let through when each
 * round must start, or end, with its own character that nothing varying inside can match
 * (`[a-z]+(\.[a-z]+)*`, `([\w-]+\.)+`, semantic versions), since its rounds can then split the
 * text one way only. Polynomial cases (`\d*\d*$`) are not found.
 */
export function patternRisk(source: string): string | null {
  const parser = { source, at: 0 };
  const found = riskIn(parseBranches(parser));
  return found === null ? null : source.slice(found.span[0], found.span[1]);
}

function riskIn(branches: readonly (readonly Item[])[]): Item | null {
  for (const branch of branches) {
    for (const item of branch) {
      if (item.atom.kind !== "group") continue;
      if (item.max > MANY && isAmbiguous(item.atom.branches)) return item;
      const inner = riskIn(item.atom.branches);
      if (inner !== null) return inner;
    }
  }
  return null;
}

function isAmbiguous(branches: readonly (readonly Item[])[]): boolean {
  return (
    hasRepetition(branches) &&
    !isDelimited(branches, (branch) => branch[0]) &&
    !isDelimited(branches, (branch) => branch.at(-1))
  );
}

/**
 * Whether every round of the repetition starts (or ends) with a character of its own: one literal
 * character per alternative, no two alike, that nothing varying in the group can match. The
 * rounds can then split the text one way only.
 */
function isDelimited(
  branches: readonly (readonly Item[])[],
  edge: (branch: readonly Item[]) => Item | undefined,
): boolean {
  const marks = branches.map((branch) => {
    const item = edge(branch);
    return item?.atom.kind === "char" && item.min === 1 && item.max === 1 ? item.atom.char : null;
  });
  if (marks.some((mark) => mark === null) || new Set(marks).size < marks.length) return false;
  const varying = branches.flatMap((branch) => varyingAtoms(branch, false));
  return !varying.some((atom) => marks.some((mark) => canMatch(atom, mark as string)));
}

function hasRepetition(branches: readonly (readonly Item[])[]): boolean {
  if (branches.length > 1) return true;
  return branches.some((branch) =>
    branch.some((item) => item.max > 1 || (item.atom.kind === "group" && hasRepetition(item.atom.branches))),
  );
}

/** The atoms of `items` that may match a varying number of times (inside such a group too). */
function varyingAtoms(items: readonly Item[], varying: boolean): Atom[] {
  return items.flatMap((item) => {
    const inside = varying || item.min !== item.max;
    if (item.atom.kind !== "group") return inside ? [item.atom] : [];
    return item.atom.branches.flatMap((branch) => varyingAtoms(branch, inside));
  });
}

function canMatch(atom: Atom, char: string): boolean {
  switch (atom.kind) {
    case "char":
      return atom.char === char;
    case "set":
      return new RegExp(`^(?:${atom.source})$`, "u").test(char);
    case "zero-width":
      return false;
    default:
      return true;
  }
}

interface Parser {
  readonly source: string;
  at: number;
}

function parseBranches(parser: Parser): Item[][] {
  const branches: Item[][] = [[]];
  while (parser.at < parser.source.length && parser.source[parser.at] !== ")") {
    if (parser.source[parser.at] === "|") {
      parser.at += 1;
      branches.push([]);
      continue;
    }
    const start = parser.at;
    const atom = parseAtom(parser);
    const [min, max] = parseQuantifier(parser);
    branches.at(-1)?.push({ atom, min, max, span: [start, parser.at] });
  }
  return branches;
}

function parseAtom(parser: Parser): Atom {
  const { source } = parser;
  const char = String.fromCodePoint(source.codePointAt(parser.at) ?? 0);
  const start = parser.at;
  parser.at += char.length;
  if (char === "(") {
    const lookaround = /^\?(?:=|!|<=|<!)/.exec(source.slice(parser.at));
    const prefix = lookaround ?? /^\?(?::|<[^>]+>)/.exec(source.slice(parser.at));
    parser.at += prefix?.[0].length ?? 0;
    const branches = parseBranches(parser);
    parser.at += 1;
    return lookaround === null ? { kind: "group", branches } : { kind: "zero-width" };
  }
  if (char === "[") {
    while (parser.at < source.length && source[parser.at] !== "]") parser.at += source[parser.at] === "\\" ? 2 : 1;
    parser.at += 1;
    return { kind: "set", source: source.slice(start, parser.at) };
  }
  if (char === "^" || char === "$") return { kind: "zero-width" };
  if (char === ".") return { kind: "set", source: "." };
  if (char !== "\\") return { kind: "char", char };
  return parseEscape(parser, start);
}

function parseEscape(parser: Parser, start: number): Atom {
  const rest = parser.source.slice(parser.at);
  const sequence =
    /^(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|k<[^>]+>|\d+|.)/su.exec(rest);
  const text = sequence?.[0] ?? "";
  parser.at += text.length;
  if (/^[bB]$/.test(text)) return { kind: "zero-width" };
  if (/^(?:[1-9]\d*|k<)/.test(text)) return { kind: "backreference" };
  if (/^[dDwWsSpP]/.test(text)) return { kind: "set", source: parser.source.slice(start, parser.at) };
  const value = new RegExp(`^${parser.source.slice(start, parser.at)}$`, "u");
  const literal = /^[\s\S]$/u.exec(text)?.[0];
  if (literal !== undefined && value.test(literal)) return { kind: "char", char: literal };
  return { kind: "set", source: parser.source.slice(start, parser.at) };
}

function parseQuantifier(parser: Parser): [number, number] {
  const found = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(parser.source.slice(parser.at));
  if (found === null) return [1, 1];
  parser.at += found[0].length;
  if (found[1] === "*") return [0, Number.POSITIVE_INFINITY];
  if (found[1] === "+") return [1, Number.POSITIVE_INFINITY];
  if (found[1] === "?") return [0, 1];
  const min = Number(found[2]);
  if (found[3] === undefined) return [min, min];
  return [min, found[4] === "" ? Number.POSITIVE_INFINITY : Number(found[4])];
}
