// The login form: JSON to /api/auth/login, which sets the session cookie; then back where we were.
(() => {
  "use strict";
  const form = document.getElementById("login-form");
  const error = form.querySelector(".form-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const response = await fetch("/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: data.get("username"), password: data.get("password") }),
    });
    if (response.ok) {
      location.href = form.dataset.next || "/dashboards";
    } else {
      error.textContent = form.dataset.failed;
      error.hidden = false;
    }
  });
})();
