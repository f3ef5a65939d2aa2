// Seaway console: refreshes the page's <main> every few seconds and sends the action forms
// with fetch. Without JavaScript the pages still render, and the forms POST and come back.
"use strict";

(function () {
  const main = () => document.getElementById("content");
  let busy = false;

  async function refresh() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const reply = await fetch(window.location.href, { headers: { Accept: "text/html" } });
      const text = await reply.text();
      const fresh = new DOMParser().parseFromString(text, "text/html").getElementById("content");
      const current = main();
      if (fresh && current) {
        // Keep what the reader opened or closed (topics, groups, traces) as it was.
        const key = (d) =>
          d.dataset.topic || d.dataset.group || d.querySelector("summary")?.textContent;
        const was = new Map([...current.querySelectorAll("details")].map((d) => [key(d), d.open]));
        for (const d of fresh.querySelectorAll("details")) {
          if (was.has(key(d))) d.open = was.get(key(d));
        }
        current.replaceWith(fresh);
        const stamp = document.getElementById("updated");
        if (stamp) stamp.textContent = fresh.dataset.updated || stamp.textContent;
      }
    } catch (error) {
      const stamp = document.getElementById("updated");
      if (stamp) stamp.textContent = "not refreshed (" + error + ")";
    } finally {
      busy = false;
    }
  }

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("action")) return;
    event.preventDefault();
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    try {
      // form.action would be the hidden input named "action": read the attribute.
      const reply = await fetch(form.getAttribute("action"), {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams(new FormData(form)),
      });
      const answer = await reply.json().catch(() => ({}));
      if (!reply.ok) window.alert(answer.error || "The action failed: HTTP " + reply.status);
    } finally {
      await refresh();
    }
  });

  function start() {
    const seconds = Number(main()?.dataset.refresh || 5);
    window.setInterval(refresh, Math.max(1, seconds) * 1000);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
