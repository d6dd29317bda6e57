import type { SharedLookup } from "./access";

export interface ShareRefusal {
  httpStatus: number;
  code: string;
  title: string;
  message: string;
}

/** Why a share link does not open, in words a reviewer without an account can act on. Null when it opens. */
export function shareRefusal(lookup: SharedLookup): ShareRefusal | null {
  switch (lookup.status) {
    case "ok":
      return null;
    case "invalid":
      return {
        httpStatus: 404,
        code: "link_invalid",
        title: "Link not valid",
        message: "This share link is not valid. Check that it was copied whole, or ask the sender for a new one.",
      };
    case "expired":
      return {
        httpStatus: 410,
        code: "link_expired",
        title: "Link expired",
        message: `This share link expired at ${lookup.expiredAt}. Ask the sender for a new one.`,
      };
    case "revoked":
      return {
        httpStatus: 410,
        code: "link_revoked",
        title: "Link revoked",
        message: `This share link was revoked at ${lookup.revokedAt} by the person who shared it or an admin.`,
      };
    case "gone":
      return {
        httpStatus: 410,
        code: "resource_gone",
        title: "Result deleted",
        message: "The result this live link followed no longer exists.",
      };
    case "disabled":
      return {
        httpStatus: 403,
        code: "links_disabled",
        title: "Sharing disabled",
        message: "An admin has disabled every share link on this instance.",
      };
    case "rate_limited":
      return {
        httpStatus: 429,
        code: "rate_limited",
        title: "Too many requests",
        message: `Too many share-link requests from your address: try again in ${lookup.retryAfterSeconds} s.`,
      };
  }
}
