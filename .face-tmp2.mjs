import ts from "typescript";
const file = "packages/core/src/index.ts";
const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true });
const checker = program.getTypeChecker();
const sym = checker.getSymbolAtLocation(program.getSourceFile(file));
const types = new Set(JSON.parse(process.argv[2]));
const by = {};
for (const e of checker.getExportsOfModule(sym)) {
  if (!types.has(e.name)) continue;
  // find the export declaration in index.ts's re-exported module
  let s = e; const seen = [];
  while (s.flags & ts.SymbolFlags.Alias) { const d = s.declarations[0]; seen.push(d.getSourceFile().fileName); s = checker.getImmediateAliasedSymbol(s); }
  const mod = seen[1] ?? s.declarations[0].getSourceFile().fileName;
  (by[mod.replace(/.*core\/src\//, "./").replace(/\.ts$/, ".js")] ??= []).push(e.name);
}
for (const [m, names] of Object.entries(by)) console.log(m, names.sort().join(", "));
