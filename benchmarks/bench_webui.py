"""Web companion figures: stable frame -> browser latency, and peak memory serving two browsers.

Runs `arbiter demo` in its own process (so its resident memory is the companion's alone), opens
the table page in two headless Chromium pages (each with the live MJPEG view and the event
stream), and lets the bundled game play to the end. Each judged move's event carries `frame_at`,
the wall-clock time its stable frame was read from the camera; the page notes when the event
arrives. Prints the median / 90th percentile / worst latency and the companion's peak RSS.

    python3 benchmarks/bench_webui.py [--port 8765] [--seconds 70]

Targets (issue 6): median latency under 150 ms; peak RSS under 300 MB.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
JUDGED_EVENTS = ("transition", "illegal")
RECORD_LATENCIES = """
window.latencies = [];
const source = new EventSource('/events');
for (const name of %s) {
  source.addEventListener(name, (event) => {
    const data = JSON.parse(event.data);
    if (data.frame_at) window.latencies.push(Date.now() - data.frame_at * 1000);
  });
}
""" % list(JUDGED_EVENTS)


def peak_rss_mb(pid: int) -> float:
    """The process's high-water resident set size (VmHWM) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc status")


def wait_until_up(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/api/table", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the demo did not answer at {url} within {timeout:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seconds", type=float, default=70.0, help="how long to watch the demo play")
    args = parser.parse_args()
    url = f"http://127.0.0.1:{args.port}"
    demo = subprocess.Popen([sys.executable, "-m", "arbiter", "demo", "--port", str(args.port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url, 60)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            pages = []
            for _ in range(2):
                page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
                page.goto(url + "/table")
                page.evaluate(RECORD_LATENCIES)
                pages.append(page)
            time.sleep(args.seconds)
            latencies = [ms for page in pages for ms in page.evaluate("window.latencies")]
            rss = peak_rss_mb(demo.pid)
            browser.close()
    finally:
        demo.terminate()
        demo.wait(10)
    if not latencies:
        print("no judged move reached the browsers: is the demo's recognition working?")
        return 1
    latencies.sort()
    p90 = latencies[min(len(latencies) - 1, int(0.9 * len(latencies)))]
    print(f"judged-move events received: {len(latencies)} (2 browsers)")
    print(f"stable frame -> browser latency: median {statistics.median(latencies):.0f} ms, "
          f"p90 {p90:.0f} ms, worst {latencies[-1]:.0f} ms  (target: median < 150 ms)")
    print(f"companion peak RSS serving 2 browsers: {rss:.0f} MB  (target: < 300 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
