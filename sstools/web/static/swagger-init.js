// Starts Swagger UI on /docs (an inline script would be blocked by the CSP).
//
// «Try it out» rides on the browser's session: the session cookie goes with every request to
// this origin, and a state-changing one also carries the X-CSRF-Token header, echoed from the
// sstools_csrf cookie as every page of ours does. With a token put in «Authorize» instead, the
// Bearer header is enough and the server asks no CSRF header.
"use strict";
(function () {
  const root = document.getElementById("swagger-ui");

  function cookie(name) {
    const found = document.cookie.split("; ").find((part) => part.startsWith(name + "="));
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  function withSession(request) {
    const method = String(request.method || "GET").toUpperCase();
    const csrf = cookie("sstools_csrf");
    if (!["GET", "HEAD", "OPTIONS"].includes(method) && csrf) {
      request.headers = request.headers || {};
      request.headers["X-CSRF-Token"] = csrf;
    }
    request.credentials = "same-origin";
    return request;
  }

  window.ui = SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null, // the public validator is another origin: the CSP would block it
    requestInterceptor: withSession,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
})();
