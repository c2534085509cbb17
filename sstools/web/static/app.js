// Shared by every page: API calls with the anti-CSRF header, the environment selector, logout.
(() => {
  "use strict";
  const ui = JSON.parse(document.body.dataset.ui || "{}");

  function cookie(name) {
    const found = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  function api(path, { method = "GET", body } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET") headers["X-CSRF-Token"] = cookie("sstools_csrf");
    return fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  window.sstools = { ui, api, onEnvChange: null };

  const selector = document.getElementById("env-selector");
  if (selector) {
    selector.addEventListener("change", () => {
      if (window.sstools.onEnvChange) {
        window.sstools.onEnvChange(selector.value);
        return;
      }
      // An object's id belongs to its environment: from a detail page go to the list.
      const section = location.pathname.split("/")[1] || "dashboards";
      const url = new URL(`/${section}`, location.origin);
      url.searchParams.set("env_id", selector.value);
      location.href = url.toString();
    });
  }

  const logout = document.getElementById("logout");
  if (logout) {
    logout.addEventListener("click", async () => {
      await api("/api/auth/logout", { method: "POST" });
      location.href = "/login";
    });
  }

  // On a phone the sections scroll sideways: the current one is brought into view.
  const current = document.querySelector(".nav [aria-current='page']");
  if (current && current.parentElement.scrollWidth > current.parentElement.clientWidth) {
    current.scrollIntoView({ block: "nearest", inline: "center" });
  }
})();
