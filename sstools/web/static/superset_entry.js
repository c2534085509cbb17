// «Спросить агента» from Superset itself: a bookmarklet a person runs on a Superset dashboard.
// It reads, with the person's own Superset session, the dashboard's id and the native filters
// as they stand (the URL's native_filters_key), and opens sstools' /agent/from-superset, which
// names the environment by Superset's address. Nothing is sent anywhere else; sstools checks
// every value again. __SSTOOLS__ is sstools' address, written in when the link is made.
(async () => {
  const sstools = __SSTOOLS__;
  const found = location.pathname.match(/\/superset\/dashboard\/([^/]+)/);
  if (!found) { alert(__NOT_A_DASHBOARD__); return; }
  const read = async (path) => {
    const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  };
  const dashboard = (await read(`/api/v1/dashboard/${encodeURIComponent(found[1])}`)).result;
  const filters = [];
  const key = new URLSearchParams(location.search).get("native_filters_key");
  if (key) {
    try {
      const state = await read(`/api/v1/dashboard/${dashboard.id}/filter_state/${encodeURIComponent(key)}`);
      for (const one of Object.values(JSON.parse(state.value || "{}"))) {
        const extra = (one && one.extraFormData) || {};
        for (const f of extra.filters || []) {
          filters.push({ column: String(f.col), op: String(f.op), values: Array.isArray(f.val) ? f.val : [f.val] });
        }
        if (extra.time_range && extra.granularity_sqla) {
          filters.push({ column: String(extra.granularity_sqla), op: "TEMPORAL_RANGE", values: [String(extra.time_range)] });
        }
      }
    } catch (error) { /* no filter state to read: the dashboard without its filters */ }
  }
  const url = new URL(`${sstools}/agent/from-superset`);
  url.searchParams.set("superset", location.origin);
  url.searchParams.set("dashboard", String(dashboard.id));
  if (filters.length) url.searchParams.set("filters", JSON.stringify(filters.slice(0, 10)));
  window.open(url.toString(), "_blank", "noopener");
})();
