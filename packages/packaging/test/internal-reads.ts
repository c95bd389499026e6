import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The machine's own state: what `RunFold`'s position, the result and the log tell outside core. */
const INTERNAL_TYPES = new Set(["AgentContext", "Transcript", "CallBatch"]);
/** Core's exports that read or name that state. */
const INTERNAL_EXPORTS = new Set([...INTERNAL_TYPES, "pendingRequests", "messagesOf", "listView", "CallState"]);

/** The TypeScript files of a package, without its build output and dependencies. */
export function packageFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.m?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !/[/\\](node_modules|dist)[/\\]/.test(relative(dir, file)));
}

/**
 * Where `files` read the machine's internals: an import of one of core's internal names, an
 * expression whose type is one of core's internal types (`snapshot.context`, `context.transcript`),
 * or a member of one read (`transcript.items`, `batch.stateOf`). One line each, `file:line what`.
 */
export function internalReads(files: readonly string[], root: string): string[] {
  // Core's declarations, as every package resolves them (a file outside a package finds them too).
  const core = join(root, "packages", "core", "dist");
  const program = ts.createProgram(files, {
    paths: { "@agentloop/core": [join(core, "index.d.ts")], "@agentloop/core/*": [join(core, "*.d.ts")] },
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  // Only accesses by these names can yield or read internal state: the checker is asked about those alone.
  const names = memberNames(program, checker, join(core, "machine.d.ts"));
  const found: string[] = [];
  for (const source of program.getSourceFiles()) {
    if (!files.includes(source.fileName)) continue;
    const report = (node: ts.Node, what: string) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${relative(root, source.fileName)}:${line + 1} ${what}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportSpecifier(node) && fromCore(node)) {
        const name = (node.propertyName ?? node.name).text;
        if (INTERNAL_EXPORTS.has(name)) report(node, `imports ${name}`);
      } else if (ts.isPropertyAccessExpression(node) && names.has(node.name.text)) {
        const what = internalAccess(checker, node);
        if (what !== null) report(node, `reads ${node.getText(source)} (${what})`);
      } else if (ts.isBindingElement(node) && names.has((node.propertyName ?? node.name).getText(source))) {
        const what = yieldedType(checker, node.name);
        if (what !== null) report(node, `takes ${node.getText(source)} (${what})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** `context` and the members of core's internal types, as its declarations in `entry` export them. */
function memberNames(program: ts.Program, checker: ts.TypeChecker, entry: string): Set<string> {
  const source = program.getSourceFile(entry);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${entry} is not built: run pnpm run build first`);
  const names = new Set(["context"]);
  for (const symbol of checker.getExportsOfModule(module)) {
    if (!INTERNAL_TYPES.has(symbol.name)) continue;
    const type = checker.getDeclaredTypeOfSymbol(
      symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
    );
    for (const property of type.getProperties()) names.add(property.name);
  }
  return names;
}

function fromCore(node: ts.ImportSpecifier): boolean {
  const module = node.parent.parent.parent.moduleSpecifier;
  return ts.isStringLiteral(module) && /^@agentloop\/core(\/|$)/.test(module.text);
}

/** The internal type an access yields, or whose member it reads; null for anything else. */
function internalAccess(checker: ts.TypeChecker, node: ts.PropertyAccessExpression): string | null {
  const yielded = yieldedType(checker, node);
  if (yielded !== null) return yielded;
  const owner = checker.getTypeAtLocation(node.expression);
  const read = coreSymbolName(owner.aliasSymbol ?? owner.getSymbol());
  return read === null ? null : `a member of ${read}`;
}

/** The internal type an expression (or a name bound by destructuring) has, or null. */
function yieldedType(checker: ts.TypeChecker, node: ts.Node): string | null {
  const type = checker.getTypeAtLocation(node);
  return coreSymbolName(type.aliasSymbol ?? type.getSymbol());
}

/** The symbol's name when it is one of core's internal types. */
function coreSymbolName(symbol: ts.Symbol | undefined): string | null {
  if (symbol === undefined || !INTERNAL_TYPES.has(symbol.name)) return null;
  const inCore = symbol.declarations?.some((declaration) =>
    /[/\\]packages[/\\]core[/\\]/.test(declaration.getSourceFile().fileName),
  );
  return inCore === true ? symbol.name : null;
}
