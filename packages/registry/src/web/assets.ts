// The UI's only stylesheet and script, served from this origin (the CSP allows nothing inline).

export const STYLESHEET = `
:root{--fg:#1b1f24;--muted:#4a5360;--bg:#fff;--line:#d0d7de;--accent:#0a58ca;--pass:#146c2e;--warn:#8a4b00;--bad:#b42318}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;padding:.6rem 1.2rem;border-bottom:1px solid var(--line)}
header .brand{font-weight:700;color:var(--fg);text-decoration:none;margin-right:auto}
nav{display:flex;align-items:center;flex-wrap:wrap;gap:.8rem}nav form{margin:0}
main{max-width:64rem;margin:0 auto;padding:1rem 1.2rem 3rem}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
code,pre{font:14px/1.45 ui-monospace,monospace}pre{background:#f6f8fa;border:1px solid var(--line);padding:.7rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
.digest{font-family:ui-monospace,monospace;font-size:13px;word-break:break-all;color:var(--muted)}
.muted{color:var(--muted)}.verdict{font-weight:700}.v-pass{color:var(--pass)}.v-review,.v-warn{color:var(--warn)}.v-malicious{color:var(--bad)}
.cols{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:1.5rem}@media (max-width:48rem){.cols{grid-template-columns:1fr}}
.readme{border:1px solid var(--line);padding:0 1rem;border-radius:6px;overflow-wrap:anywhere}.readme img{max-width:100%}
form.stack label{display:block;margin:.6rem 0 .2rem;font-weight:600}input[type=text],input[type=search],input[type=password],textarea{width:100%;padding:.4rem;border:1px solid #6e7781;border-radius:4px;font:inherit}
button{font:inherit;padding:.35rem .8rem;border:1px solid var(--accent);background:var(--accent);color:#fff;border-radius:4px;cursor:pointer}
button.link{background:none;color:var(--accent);border:none;padding:0;text-decoration:underline}
.install{display:flex;gap:.5rem;align-items:flex-start}.install pre{flex:1;margin:.2rem 0}
.notice{border-left:4px solid var(--warn);padding:.4rem .8rem;background:#fff8e6}.error{border-left-color:var(--bad);background:#fdecea}
.search{display:flex;gap:.5rem}.search input{flex:1}
`;

/** Progressive: copy buttons next to the install lines. Reading works without it. */
export const SCRIPT = `
for (const pre of document.querySelectorAll("pre[data-copy]")) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Copy";
  button.setAttribute("aria-label", "Copy: " + pre.getAttribute("data-copy"));
  button.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(pre.textContent || ""); button.textContent = "Copied"; }
    catch { button.textContent = "Select and copy"; }
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  });
  pre.after(button);
}
`;
