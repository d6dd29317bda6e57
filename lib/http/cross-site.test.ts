import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { isCrossSiteWrite, refuseCrossSiteWrite } from "./cross-site";

const HOST = "127.0.0.1:3000";
const crossSite = (method: string, headers: Record<string, string>, configured?: string) =>
  isCrossSiteWrite(method, new Headers({ host: HOST, ...headers }), configured);

describe("the cross-site write rule", () => {
  it("refuses a write whose Origin names another site, or that the browser calls cross-site", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "post"]) {
      expect(crossSite(method, { origin: "https://evil.example" })).toBe(true);
      expect(crossSite(method, { "sec-fetch-site": "cross-site" })).toBe(true);
    }
    // Another port of the same host is another origin.
    expect(crossSite("POST", { origin: "http://127.0.0.1:3001" })).toBe(true);
    // An Origin that is not a URL (a sandboxed frame sends "null") names no site of ours.
    expect(crossSite("POST", { origin: "null" })).toBe(true);
    // Sec-Fetch-Site wins over a same-origin Origin.
    expect(crossSite("POST", { origin: `http://${HOST}`, "sec-fetch-site": "cross-site" })).toBe(true);
  });

  it("lets through reads, same-origin writes, the configured public origin, and scripts that send no Origin", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(crossSite(method, { origin: "https://evil.example", "sec-fetch-site": "cross-site" })).toBe(false);
    expect(crossSite("POST", { origin: `http://${HOST}`, "sec-fetch-site": "same-origin" })).toBe(false);
    expect(crossSite("POST", {})).toBe(false);
    expect(crossSite("POST", { "sec-fetch-site": "same-site" })).toBe(false);
    // Behind a reverse proxy that rewrites Host: the browser's origin is the configured one.
    expect(crossSite("POST", { origin: "https://lab.example" }, "https://lab.example")).toBe(false);
    expect(crossSite("POST", { origin: "https://other.example" }, "https://lab.example")).toBe(true);
  });

  it("answers a refusal as 403 cross_site", () => {
    let refusal: unknown;
    try {
      refuseCrossSiteWrite("DELETE", new Headers({ host: HOST, origin: "https://evil.example" }), undefined);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: "forbidden", code: "cross_site", message: "cross-site requests may not change anything" });
    expect(() => refuseCrossSiteWrite("POST", new Headers({ host: HOST }), undefined)).not.toThrow();
  });
});
