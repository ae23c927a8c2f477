// What the TypeScript compiler reads in the package's declarations and the consumers' sources.
import ts from 'typescript';
import { PACKAGE } from './config.mjs';

/**
 * Names exported by a .d.ts: [values, types].
 * @param {string} dtsPath @returns {{ values: Set<string>, types: Set<string> }}
 */
export function declaredExports(dtsPath) {
  // The module's exports as the compiler resolves them, `export *` of the generated declarations
  // included: what a consumer's `import { … }` can name.
  const program = ts.createProgram([dtsPath], {
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  /** @type {Set<string>} */
  const values = new Set();
  /** @type {Set<string>} */
  const types = new Set();
  for (const symbol of checker.getExportsOfModule(
    /** @type {ts.Symbol} */ (checker.getSymbolAtLocation(/** @type {ts.SourceFile} */ (program.getSourceFile(dtsPath)))))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    (target.flags & ts.SymbolFlags.Value ? values : types).add(symbol.name);
  }
  return { values, types };
}

/**
 * Names a source file imports from `specifier` (the package or one of its subpaths).
 * @param {string} source @param {string} [specifier] @returns {Set<string>}
 */
export function importedNames(source, specifier = PACKAGE) {
  const file = ts.createSourceFile('consumer.ts', source, ts.ScriptTarget.Latest, true);
  /** @type {Set<string>} */
  const names = new Set();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || /** @type {ts.StringLiteral} */ (statement.moduleSpecifier).text !== specifier) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add((e.propertyName ?? e.name).text);
  }
  return names;
}

/**
 * A top-level statement, with the name a declaration has (a variable statement: its list).
 * @typedef {ts.Statement & { name?: { text: string }, declarationList?: ts.VariableDeclarationList }} TopLevel
 */

/** Every `any` type in a declaration file (comments and strings are not types), counted per
 *  top-level declaration: { "interface InitOutput": 61, … }.
 * @param {string} path @param {string} source @returns {Record<string, number>} */
export function anyTypesIn(path, source) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  /** @type {Record<string, number>} */
  const counts = {};
  for (const statement of file.statements) {
    const name = /** @type {TopLevel} */ (statement).name?.text ?? /** @type {TopLevel} */ (statement).declarationList?.declarations[0]?.name.getText(file) ?? '?';
    const kind = ts.isVariableStatement(statement) ? 'const'
      : ts.isInterfaceDeclaration(statement) ? 'interface'
        : ts.isTypeAliasDeclaration(statement) ? 'type'
          : ts.isClassDeclaration(statement) ? 'class'
            : ts.isFunctionDeclaration(statement) ? 'function' : 'statement';
    const where = `${kind} ${name}`;
    const visit = (/** @type {ts.Node} */ n) => {
      if (n.kind === ts.SyntaxKind.AnyKeyword) counts[where] = (counts[where] ?? 0) + 1;
      ts.forEachChild(n, visit);
    };
    visit(statement);
  }
  return counts;
}
