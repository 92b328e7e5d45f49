const t = [["start", performance.now()]];
const { Workspace } = await import("@skillport/runtime/workspace"); t.push(["workspace mod", performance.now()]);
const ws = new Workspace("/tmp/tmp.FDLFyhpVni", { sandbox: "bubblewrap" }); t.push(["new Workspace", performance.now()]);
const sb = await ws.sandbox(); t.push(["sandbox()", performance.now()]);
await ws.exec("true"); t.push(["exec1", performance.now()]);
await ws.exec("true"); t.push(["exec2", performance.now()]);
await ws.exec("true"); t.push(["exec3", performance.now()]);
process.on("exit", () => { t.push(["exit", performance.now()]); let p = 0; console.log(t.map(([k, v]) => { const s = k + " " + (v - p).toFixed(1); p = v; return s; }).join(" | ")); });
