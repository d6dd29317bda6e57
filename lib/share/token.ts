import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";

/** 32 random bytes: 256 bits, so a token cannot be guessed or enumerated. */
const TOKEN_BYTES = 32;

/**
 * 32 bytes in unpadded base64url are 43 characters; the last one carries only 4 bits, so it is one
 * of the 16 characters whose low 2 bits are zero. Anything else was never issued.
 */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new share token. It goes in the link's URL and nowhere else; the database keeps its hash. */
export function newShareToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

/** The SHA-256 (hex) of a token: what share_links.token_hash stores and lookups compare. */
export function hashShareToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Exactly the shape newShareToken() makes, so a malformed token is refused before any lookup. */
export const shareTokenSchema = z.string().regex(TOKEN_PATTERN, "not a share token");
