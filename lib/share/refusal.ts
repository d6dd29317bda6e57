import type { ErrorKind } from "../errors";
import type { SharedLookup } from "./access";

/** A link that does not open: its kind (the HTTP edge turns it into 404, 410, 403 or 429), code and words for a page. */
export interface ShareRefusal {
  kind: ErrorKind;
  code: string;
  title: string;
  message: string;
  /** The instant the message names (ISO 8601, as written in it): a page shows it in the reader's time. */
  instant?: string;
}

/** Why a share link does not open, in words a reviewer without an account can act on. Null when it opens. */
export function shareRefusal(lookup: SharedLookup): ShareRefusal | null {
  switch (lookup.status) {
    case "ok":
      return null;
    case "invalid":
      return {
        kind: "not_found",
        code: "link_invalid",
        title: "Link not valid",
        message: "This share link is not valid. Check that it was copied whole, or ask the sender for a new one.",
      };
    case "expired":
      return {
        kind: "gone",
        code: "link_expired",
        title: "Link expired",
        message: `This share link expired at ${lookup.expiredAt}. Ask the sender for a new one.`,
        instant: lookup.expiredAt,
      };
    case "revoked":
      return {
        kind: "gone",
        code: "link_revoked",
        title: "Link revoked",
        message: `This share link was revoked at ${lookup.revokedAt} by the person who shared it or an admin.`,
        instant: lookup.revokedAt,
      };
    case "gone":
      return {
        kind: "gone",
        code: "resource_gone",
        title: "Result deleted",
        message: "The result this link shows no longer exists: it was deleted. Ask the sender whether it was replaced.",
      };
    case "disabled":
      return {
        kind: "forbidden",
        code: "links_disabled",
        title: "Sharing disabled",
        message: "An admin has disabled every share link on this instance.",
      };
    case "rate_limited":
      return {
        kind: "rate_limited",
        code: "rate_limited",
        title: "Too many requests",
        message: `Too many share-link requests from your address: try again in ${lookup.retryAfterSeconds} s.`,
      };
  }
}
