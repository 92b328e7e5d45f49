import ts from "typescript";
const file = process.argv[2];
const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, customConditions: ["@skillport/source"], noEmit: true });
const checker = program.getTypeChecker();
const sf = program.getSourceFile(file);
const sym = checker.getSymbolAtLocation(sf);
const values = [], types = [];
for (const e of checker.getExportsOfModule(sym)) {
  const t = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
  const isValue = (t.flags & ts.SymbolFlags.Value) !== 0;
  // type-only export (export type *) → value not reachable
  const decl = e.declarations?.[0];
  const typeOnly = decl && (ts.isTypeOnlyExportDeclaration?.(decl) || (decl.parent && decl.parent.parent && ts.isExportDeclaration(decl.parent.parent) && decl.parent.parent.isTypeOnly) || (ts.isExportSpecifier(decl) && decl.isTypeOnly));
  if (isValue && !typeOnly && !checker.getTypeOnlyAliasDeclaration?.(e)) values.push(e.name); else types.push(e.name);
}
console.log(JSON.stringify({ values: values.sort(), types: types.sort() }));
