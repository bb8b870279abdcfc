// Renders one Mermaid diagram with the pinned Mermaid (package-lock.json) in Debian's
// chromium, and prints what it drew as one JSON line on stdout:
//   {"svg_bytes": n, "title": "...", "x_labels": [...], "y_labels": [...],
//    "bars": [{"x": .., "y": .., "width": .., "height": ..}, ...],
//    "lines": [[[x, y], ...], ...], "plot_height": ..}
// The diagram comes on stdin; the browser's profile in a fresh directory given as the first
// argument (the caller deletes it). Nothing is downloaded: playwright-core drives the
// system's /usr/bin/chromium, and the page loads Mermaid from node_modules.
// A diagram Mermaid refuses prints {"error": "..."} and exits 2.
// Used by tests/it/chart.rs, which stops this process by its PID.
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const profile = process.argv[2];
if (!profile) {
  console.error("usage: node render.mjs <fresh profile directory> < diagram.mmd");
  process.exit(64);
}
const diagram = readFileSync(0, "utf8");
const mermaidJs = join(here, "node_modules", "mermaid", "dist", "mermaid.min.js");

const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  offline: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
let status = 0;
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.setContent("<!doctype html><html><body><div id=out></div></body></html>");
  await page.addScriptTag({ path: mermaidJs });
  const drawn = await page.evaluate(async (text) => {
    // eslint-disable-next-line no-undef
    const m = globalThis.mermaid;
    m.initialize({ startOnLoad: false, securityLevel: "strict" });
    let svg;
    try {
      ({ svg } = await m.render("chart", text));
    } catch (e) {
      return { error: String(e && e.message ? e.message : e) };
    }
    const out = document.getElementById("out");
    out.innerHTML = svg;
    const root = out.querySelector("svg");
    const texts = (selector) =>
      [...root.querySelectorAll(selector)].map((t) => t.textContent.trim());
    const num = (el, a) => Number.parseFloat(el.getAttribute(a));
    const bars = [...root.querySelectorAll(".bar-plot-0 rect")].map((r) => ({
      x: num(r, "x"),
      y: num(r, "y"),
      width: num(r, "width"),
      height: num(r, "height"),
    }));
    const lines = [...root.querySelectorAll("[class^='line-plot-'] path")].map((p) => {
      const d = p.getAttribute("d") || "";
      const points = [];
      for (const m of d.matchAll(/[ML]\s*(-?[\d.]+)[ ,](-?[\d.]+)/g)) {
        points.push([Number.parseFloat(m[1]), Number.parseFloat(m[2])]);
      }
      return points;
    });
    const plot = root.querySelector(".plot");
    return {
      svg_bytes: svg.length,
      title: texts(".chart-title text").join(" "),
      x_labels: texts(".bottom-axis .label text"),
      y_labels: texts(".left-axis .label text"),
      bars,
      lines,
      plot_height: plot ? plot.getBBox().height : null,
    };
  }, diagram);
  if (drawn.error) status = 2;
  process.stdout.write(JSON.stringify(drawn) + "\n");
} finally {
  await context.close();
}
process.exit(status);
