/**
 * The run page's "what the model was shown" box: for the selected event, the messages of the last
 * model call at or before it, rebuilt from the page's data (messages are only appended, so a
 * call is shown every message logged before its reply, but for what the last compaction before
 * it hid: the head, the summary in place of the hidden messages, and the messages kept).
 */
export const PROMPT_JS = `
(() => {
  const ROLES = ["system", "user", "assistant", "tool"];
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  function show() {
    const data = JSON.parse(document.getElementById("run-data").textContent);
    const box = document.getElementById("prompt");
    const note = document.getElementById("prompt-note");
    const replied = data.types.indexOf("model.replied");
    let at = Number(document.getElementById("step").value);
    while (at >= 0 && data.rows[at][0] !== replied) at--;
    if (at < 0) {
      note.textContent = "No model call at or before the selected event.";
      box.innerHTML = "";
      return;
    }
    let shown = data.rows.slice(0, at).flatMap((row) => row[5]);
    const view = (data.compactions || []).filter((c) => c[0] < at).pop();
    let hidden = "";
    if (view !== undefined) {
      const [, head, keptFrom, summary] = view;
      const kept = shown.slice(keptFrom);
      hidden = " (compacted at event #" + view[0] + ": " + (keptFrom - head - 1) + " earlier messages hidden" + (summary === null ? ")" : ", a summary in their place)");
      shown = [...shown.slice(0, head + 1), ...(summary === null ? [] : [[1, summary]]), ...kept];
    }
    note.textContent = "The model call answered at event #" + at + " was shown these " + shown.length + " messages" + hidden + ":";
    box.innerHTML = shown.map((m) => '<li class="msg ' + ROLES[m[0]] + '"><b>' + ROLES[m[0]] + "</b> " +
      (m[0] === 3 ? "[" + esc(m[2]) + "] " : "") + esc(m[1].length > 400 ? m[1].slice(0, 400) + "…" : m[1]) +
      (m[0] === 2 && m[2].length ? " <i>" + m[2].map((c) => esc(c[0]) + "(" + esc(c[1]) + ")").join(", ") + "</i>" : "") + "</li>").join("");
  }
  const later = () => setTimeout(show, 0);
  document.addEventListener("input", later);
  document.addEventListener("click", later);
  document.addEventListener("studio:updated", later);
  show();
})();
`;
