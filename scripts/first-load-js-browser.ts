// First-load JavaScript of a page as Chromium downloads it (docs/dashboard.md): every script response the page
// fetches, counted in served bytes (the body as sent: gzip when the server compressed it, else the
// gzip of the body, as a CDN would serve it), split into those finished by the load event and those
// finished by network idle (lazy charts and editors a page fetches itself after load). The page's
// HTML (its streamed payload included) is counted separately, uncompressed.
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "@playwright/test";
import { CHROMIUM_LAUNCH_OPTIONS } from "../lib/testing/chromium";

export interface BrowserFirstLoad {
  byLoadBytes: number;
  byIdleBytes: number;
  scripts: number;
  /** The document's body as sent, decoded: HTML with React's inline payload. */
  htmlBytes: number;
}

/** Chromium as the browser tests start it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
}

/** Loads `url` in a fresh context (so nothing is cached), at 1440×900, with `headers` on every request. */
export async function firstLoadInChromium(browser: Browser, url: string, headers: Record<string, string>): Promise<BrowserFirstLoad> {
  const context = await browser.newContext({ extraHTTPHeaders: headers, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  let loaded = false;
  const pending: Promise<{ bytes: number; beforeLoad: boolean }>[] = [];
  page.on("load", () => {
    loaded = true;
  });
  page.on("requestfinished", (request) => {
    if (request.resourceType() !== "script") return;
    const beforeLoad = !loaded;
    pending.push(
      (async () => {
        const response = await request.response();
        const encoded = response && /gzip|br|zstd/.test((await response.allHeaders())["content-encoding"] ?? "");
        const bytes = encoded ? (await request.sizes()).responseBodySize : gzipSync((await response?.body()) ?? Buffer.alloc(0)).length;
        return { bytes, beforeLoad };
      })(),
    );
  });
  try {
    const document = await page.goto(url, { waitUntil: "load" });
    if (!document || document.status() !== 200) throw new Error(`GET ${url} answered ${document?.status()}`);
    const htmlBytes = (await document.body()).length;
    await page.waitForLoadState("networkidle");
    const scripts = await Promise.all(pending);
    const sum = (list: { bytes: number }[]) => list.reduce((total, s) => total + s.bytes, 0);
    return { byLoadBytes: sum(scripts.filter((s) => s.beforeLoad)), byIdleBytes: sum(scripts), scripts: scripts.length, htmlBytes };
  } finally {
    await context.close();
  }
}
