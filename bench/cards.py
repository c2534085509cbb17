"""SC-002: from the server writing a `confirm_required` event to its card painted in Chromium.

The app runs in a process of its own (:mod:`bench.app_process`) with a model that asks to deploy
to prod on every message, so each message ends on a confirmation card; the bench denies it and
sends the next. Both ends are this machine's wall clock:

- written: the stored event row's ``created_at`` (the server's clock just before its INSERT);
- painted: in the page, a MutationObserver sees the card inserted, then in the next animation
  frame a message-channel task runs after that frame's paint and reads
  ``performance.timeOrigin + performance.now()``. The page's arrival time (EventSource
  ``message``) is kept too: arrival → painted is the page's share, the baseline printed beside.

The page's clock is checked against Python's before the run; the offset is printed with the row.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import Page, async_playwright

from bench.app_process import AppProcess, app_process
from bench.table import Row
from sstools.testing import CHROMIUM, CHROMIUM_ARGS

CARDS = 40
GOAL_MS = 50.0

# Bench-only probes, installed before the page's own script: the page itself records nothing.
PROBES = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__bench = { arrived: {}, painted: {} };
  const Native = window.EventSource;
  window.EventSource = function (url, options) {
    const source = new Native(url, options);
    source.addEventListener("message", (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "confirm_required") window.__bench.arrived[data.confirmation_id] = now();
    });
    return source;
  };
  window.EventSource.prototype = Native.prototype;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        const id = node.dataset && node.dataset.confirmationId;
        if (!id) continue;
        requestAnimationFrame(() => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => { window.__bench.painted[id] = now(); };
          channel.port2.postMessage(null);
        });
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def clock_offset_ms(page: Page) -> float:
    """The page's clock minus Python's (ms), from the tightest of a few bracketed readings."""
    readings = []
    for _ in range(20):
        before = time.time() * 1000
        page_now: float = await page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time() * 1000
        readings.append((after - before, page_now - (before + after) / 2))
    return min(readings)[1]


async def run(server: AppProcess) -> tuple[dict[str, float], dict[str, float], float]:
    """Per confirmation id: the page's arrival and paint times (epoch ms); the clock offset."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = await browser.new_context()
        await context.add_cookies(
            [
                {"name": "sstools_session", "value": server.token, "url": server.url},
                {"name": "sstools_csrf", "value": "bench-csrf-value", "url": server.url},
            ]
        )
        await context.add_init_script(PROBES)
        page = await context.new_page()
        await page.goto(
            f"{server.url}/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
        )
        offset = await clock_offset_ms(page)
        for number in range(1, CARDS + 1):
            await page.fill("#message", f"выкати #{number}")
            await page.click("#send")
            card = page.locator(".card").nth(number - 1)
            await card.wait_for()
            await card.locator("button", has_text="Отклонить").click()
            await page.locator(".status.cancelled").nth(number - 1).wait_for()
            await page.locator("#composer[data-busy=false]").wait_for()
        await page.wait_for_function(f"Object.keys(window.__bench.painted).length >= {CARDS}")
        probes: dict[str, dict[str, float]] = await page.evaluate("window.__bench")
        await browser.close()
    return probes["arrived"], probes["painted"], offset


async def measure() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        async with app_process(Path(folder), "deploy") as server:
            arrived, painted, offset = await run(server)
            written = {
                data["confirmation_id"]: at * 1000
                for _, _, data, at in server.events_written()
                if data["type"] == "confirm_required"
            }
    # The page's times are brought to Python's clock before the subtraction.
    total = [painted[c] - offset - written[c] for c in painted]
    in_page = [painted[c] - arrived[c] for c in painted]
    p95, page_p95 = percentile(total, 0.95), percentile(in_page, 0.95)
    return [
        Row(
            area="SC-002",
            metric=f"event written → card painted in Chromium, p95 ({len(total)} cards)",
            measured=(
                f"p50 {statistics.median(total):.0f} ms, p95 {p95:.0f} ms "
                f"(page clock offset {offset:+.1f} ms)"
            ),
            baseline=(
                f"arrival in page → painted: p50 {statistics.median(in_page):.0f} ms, "
                f"p95 {page_p95:.0f} ms"
            ),
            ratio=p95 / page_p95,
            goal=f"p95 ≤ {GOAL_MS:.0f} ms",
            met=p95 <= GOAL_MS,
        )
    ]


def rows() -> list[Row]:
    return asyncio.run(measure())


if __name__ == "__main__":
    for row in rows():
        print(row)
