// First-load JavaScript of a page, as bench:dashboard reports it: the gzip size of every script the
// page's HTML loads (<script src>, except nomodule polyfills, and <link rel=modulepreload|preload as=script>), each counted once
// per page. Inline scripts (React's streamed payload) are part of the HTML and not counted here.
import { gzipSync } from "node:zlib";

/** The same-origin script URLs an HTML document loads. */
export function scriptUrls(html: string): string[] {
  const urls = new Set<string>();
  // nomodule scripts (Next's polyfills for old browsers) are never fetched by a browser that runs modules.
  for (const match of html.matchAll(/<script\b[^>]*>/g)) {
    const src = /\bsrc="([^"]+)"/.exec(match[0])?.[1];
    if (src && !/\bnomodule\b/i.test(match[0])) urls.add(src);
  }
  for (const match of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = match[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href && (/\brel="modulepreload"/.test(tag) || (/\brel="preload"/.test(tag) && /\bas="script"/.test(tag)))) urls.add(href);
  }
  return [...urls].map((u) => u.replace(/&amp;/g, "&")).filter((u) => u.startsWith("/"));
}

/** Gzip bytes (level 9, as a CDN would serve) of every script a page's HTML loads, and the scripts. */
export async function firstLoadJsGzipBytes(
  html: string,
  fetchScript: (path: string) => Promise<Buffer>,
  cache = new Map<string, number>(),
): Promise<{ bytes: number; scripts: number }> {
  let bytes = 0;
  const urls = scriptUrls(html);
  for (const url of urls) {
    let size = cache.get(url);
    if (size === undefined) {
      size = gzipSync(await fetchScript(url), { level: 9 }).length;
      cache.set(url, size);
    }
    bytes += size;
  }
  return { bytes, scripts: urls.length };
}
