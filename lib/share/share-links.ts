import { z } from "zod";
import { can } from "../auth/permissions";
import type { Principal } from "../auth/principal";
import type { Db } from "../db/prisma";
import { forbidden, notFound } from "../errors";
import type { Prisma, ShareLink } from "../generated/prisma/client";
import { contentHash } from "../content-hash";
import { loadShareContent, shareResourceExists, type ShareContent } from "./resources";
import type { CreateShareLinkInput, ListShareLinksQuery, ShareMode, ShareResourceType } from "./share-link-schemas";
import { hashShareToken, newShareToken, shareTokenSchema } from "./token";
import { rowsOf } from "../db/rows";

const DAY_MS = 86_400_000;
/** instance_settings has exactly one row (a CHECK in the migration). */
const SETTINGS_ID = 1;

export type ShareLinkStatus = "active" | "expired" | "revoked";

/** Everything about a link that its creator or an admin may see: never the token nor its hash. */
const linkViewSelect = {
  id: true,
  resourceType: true,
  resourceId: true,
  mode: true,
  contentHash: true,
  note: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  useCount: true,
  lastUsedAt: true,
  createdBy: { select: { id: true, email: true, name: true } },
} satisfies Prisma.ShareLinkSelect;
type LinkViewRow = Prisma.ShareLinkGetPayload<{ select: typeof linkViewSelect }>;

/** A link as its creator or an admin sees it; timestamps are ISO strings, ready for JSON and pages. */
export interface ShareLinkView {
  id: string;
  resourceType: ShareResourceType;
  resourceId: string | null;
  mode: ShareMode;
  contentHash: string | null;
  note: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** How many times the link was opened (the same as useCount, the name the share panel uses). */
  uses: number;
  /** Kept for the pages written before `uses`; the same number. */
  useCount: number;
  lastUsedAt: string | null;
  createdBy: { id: string; email: string; name: string };
  status: ShareLinkStatus;
}

/** Revoked wins over expired: it is the deliberate act. A link expires at expiresAt exactly. */
export function shareLinkStatus(link: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): ShareLinkStatus {
  if (link.revokedAt !== null) return "revoked";
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

// The database's CHECK constraints hold resource_type and mode to these values.
const toView = (row: LinkViewRow, now: Date): ShareLinkView => ({
  ...row,
  uses: row.useCount,
  resourceType: row.resourceType as ShareResourceType,
  mode: row.mode as ShareMode,
  createdAt: row.createdAt.toISOString(),
  expiresAt: iso(row.expiresAt),
  revokedAt: iso(row.revokedAt),
  lastUsedAt: iso(row.lastUsedAt),
  status: shareLinkStatus(row, now),
});

// ---------------------------------------------------------------------------------------------
// Creating, listing and revoking links

export interface CreateShareLinkOptions {
  /** Days until a link expires when the creator did not choose (env SHARE_LINK_DEFAULT_DAYS). */
  defaultExpiryDays: number;
  now?: Date;
}

/**
 * Makes a link to one experiment or run and returns its token: the only time the token exists
 * outside the URL, since only its hash is stored. A frozen link stores the content and its hash now.
 * The caller checks permissions (share:create, and that the principal may read the resource).
 */
export async function createShareLink(
  db: Db,
  principal: Principal,
  input: CreateShareLinkInput,
  { defaultExpiryDays, now = new Date() }: CreateShareLinkOptions,
): Promise<{ token: string; link: ShareLinkView }> {
  const frozen = await contentToFreeze(db, input);
  const token = newShareToken();
  const row = await db.shareLink.create({
    data: {
      tokenHash: hashShareToken(token),
      resourceType: input.resourceType,
      resourceId: input.resourceId ?? null,
      resourceIds: input.resourceIds ?? [],
      mode: input.mode,
      ...(frozen && { snapshot: frozen.content as unknown as Prisma.InputJsonValue, contentHash: frozen.contentHash }),
      note: input.note || null,
      createdById: principal.userId,
      createdAt: now,
      expiresAt: expiryOf(input.expiresInDays, defaultExpiryDays, now),
    },
    select: linkViewSelect,
  });
  return { token, link: toView(row, now) };
}

/** The content a frozen link keeps (null for a live one); 404 when the resource does not exist. */
async function contentToFreeze(db: Db, input: CreateShareLinkInput): Promise<{ content: ShareContent; contentHash: string } | null> {
  const missing = () =>
    input.resourceIds
      ? notFound(`one of the evaluations ${input.resourceIds.join(", ")}`, "resourceIds")
      : notFound(`${input.resourceType} ${input.resourceId}`, "resourceId");
  const resourceId = input.resourceId ?? null;
  const resourceIds = input.resourceIds ?? [];
  if (input.mode === "live") {
    if (!(await shareResourceExists(db, input.resourceType, resourceId, resourceIds))) throw missing();
    return null;
  }
  const content = await loadShareContent(db, input.resourceType, resourceId, resourceIds);
  if (!content) throw missing();
  return { content, contentHash: contentHash(content) };
}

/** null expiresInDays: never, by the creator's explicit choice; undefined: the instance default. */
function expiryOf(expiresInDays: number | null | undefined, defaultDays: number, now: Date): Date | null {
  if (expiresInDays === null) return null;
  return new Date(now.getTime() + (expiresInDays ?? defaultDays) * DAY_MS);
}

export interface ListShareLinksOptions {
  /** Only the links this user made. */
  createdById?: string;
  /** Only the links to this one resource (id null: the protocol matrix; ids: a comparison's evaluations, in order). */
  resource?: { type: ShareResourceType; id: string | null; ids?: string[] };
  now?: Date;
}

/** Links newest first, filtered by creator and resource when given. The caller decides who may see which. */
export async function listShareLinks(
  db: Db,
  { createdById, resource, now = new Date() }: ListShareLinksOptions = {},
): Promise<ShareLinkView[]> {
  const rows = await db.shareLink.findMany({
    where: {
      ...(createdById !== undefined && { createdById }),
      ...(resource && {
        resourceType: resource.type,
        resourceId: resource.id,
        ...(resource.ids && { resourceIds: { equals: resource.ids } }),
      }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: linkViewSelect,
  });
  return rows.map((row) => toView(row, now));
}

/**
 * The links a principal may see, as GET /api/v1/share-links answers them: their own; every user's
 * with `all` (share:admin only, else 403 naming it); and, for one resource's share panel, every
 * user's to it for a principal with share:admin, their own to it for anyone else.
 */
export async function visibleShareLinks(
  db: Db,
  principal: Principal,
  query: ListShareLinksQuery,
  now = new Date(),
): Promise<ShareLinkView[]> {
  const isAdmin = can(principal.role, "share:admin");
  if (query.all && !isAdmin) throw forbidden("all: only an admin may list every share link", "all");
  const resource =
    query.resourceType === undefined ? undefined : { type: query.resourceType, id: query.resourceId ?? null, ids: query.resourceIds };
  const everyone = query.all || (resource !== undefined && isAdmin);
  return listShareLinks(db, { createdById: everyone ? undefined : principal.userId, resource, now });
}

/**
 * Revokes a link: its creator may, and a principal with share:admin may revoke any. Revoking twice
 * keeps the first revokedAt, so the record shows when the link stopped working.
 */
export async function revokeShareLink(db: Db, principal: Principal, id: string, now = new Date()): Promise<ShareLinkView> {
  // A malformed id names no link; asking PostgreSQL would fail on the uuid cast instead.
  const link = z.uuid().safeParse(id).success ? await db.shareLink.findUnique({ where: { id }, select: { createdById: true } }) : null;
  if (!link) throw notFound("share link");
  if (link.createdById !== principal.userId && !can(principal.role, "share:admin")) {
    throw forbidden("only the link's creator, or an admin (share:admin), may revoke it");
  }
  await db.shareLink.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  return toView(await db.shareLink.findUniqueOrThrow({ where: { id }, select: linkViewSelect }), now);
}

// ---------------------------------------------------------------------------------------------
// The instance kill switch

/** Whether an admin has switched every share link off. */
export async function shareLinksDisabled(db: Db): Promise<boolean> {
  const settings = await db.instanceSettings.findUnique({ where: { id: SETTINGS_ID }, select: { shareLinksDisabled: true } });
  return settings?.shareLinksDisabled ?? false;
}

/** Switches every share link off (or back on); needs share:admin. Records who did it. */
export async function setShareLinksDisabled(
  db: Db,
  principal: Principal,
  disabled: boolean,
): Promise<{ disabled: boolean; updatedAt: string; updatedById: string | null }> {
  if (!can(principal.role, "share:admin")) throw forbidden(`the ${principal.role} role does not allow share:admin`);
  const data = { shareLinksDisabled: disabled, updatedById: principal.userId };
  // Upsert: the migration inserts the row, but the switch must work even if someone deleted it.
  const settings = await db.instanceSettings.upsert({ where: { id: SETTINGS_ID }, create: { id: SETTINGS_ID, ...data }, update: data });
  return { disabled: settings.shareLinksDisabled, updatedAt: settings.updatedAt.toISOString(), updatedById: settings.updatedById };
}

// ---------------------------------------------------------------------------------------------
// Opening a link (anonymous: the token is the only credential)

export interface OpenedShareLink {
  id: string;
  resourceType: ShareResourceType;
  resourceId: string | null;
  mode: ShareMode;
  createdAt: string;
  expiresAt: string | null;
  note: string | null;
}

type Refusal =
  | { status: "invalid" }
  | { status: "expired"; expiredAt: string }
  | { status: "revoked"; revokedAt: string }
  | { status: "disabled" }
  | { status: "gone" };

export type OpenShareLinkResult =
  | {
      status: "ok";
      link: OpenedShareLink;
      content: ShareContent;
      /** SHA-256 of the content's canonical JSON: stored at creation (frozen) or computed now (live). */
      contentHash: string;
      /** When the content was taken: the link's creation (frozen), or now (live). */
      snapshotAt: string;
    }
  | Refusal;

/** Malformed, unknown and tampered tokens get the same answer: no hint which. */
const INVALID = { status: "invalid" } as const;

/**
 * Opens a link by its token. The use is counted only when the content is shown, by an UPDATE that
 * re-checks revocation, expiry and the kill switch, so a revoke landing mid-request is honoured.
 */
export async function openShareLink(db: Db, token: string, now = new Date()): Promise<OpenShareLinkResult> {
  if (await shareLinksDisabled(db)) return { status: "disabled" };
  const parsed = shareTokenSchema.safeParse(token);
  if (!parsed.success) return INVALID;
  // Looked up by hash: the 256-bit token is not guessable, so comparing hashes needs no constant time.
  const link = await db.shareLink.findUnique({ where: { tokenHash: hashShareToken(parsed.data) } });
  if (!link) return INVALID;
  const refused = refusalOf(link, now);
  if (refused) return refused;
  const shown = await contentShown(db, link, now);
  if (!shown) return { status: "gone" };
  if (!(await recordUse(db, link.id, now))) return currentRefusal(db, link.id, now);
  const { id, resourceId, note } = link;
  const opened = {
    id,
    resourceType: link.resourceType as ShareResourceType,
    resourceId,
    mode: link.mode as ShareMode,
    createdAt: link.createdAt.toISOString(),
    expiresAt: iso(link.expiresAt),
    note,
  };
  return { status: "ok", link: opened, ...shown };
}

function refusalOf(link: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): Refusal | null {
  switch (shareLinkStatus(link, now)) {
    case "revoked":
      return { status: "revoked", revokedAt: link.revokedAt!.toISOString() };
    case "expired":
      return { status: "expired", expiredAt: link.expiresAt!.toISOString() };
    case "active":
      return null;
  }
}

/** Resources whose deletion takes back their frozen links too: an evaluation, and a comparison of evaluations (docs/accounts.md, Share links). */
const FROZEN_GONE_WITH_RESOURCE: ReadonlySet<string> = new Set(["evaluation", "comparison"]);

/**
 * The frozen snapshot as stored, or the live content as it is now; null when the resource is gone. A
 * frozen link of a deleted evaluation (or a comparison holding one) is gone too; a frozen link of an
 * experiment or run keeps what was shared.
 */
async function contentShown(
  db: Db,
  link: ShareLink,
  now: Date,
): Promise<{ content: ShareContent; contentHash: string; snapshotAt: string } | null> {
  if (link.mode === "frozen") {
    if (link.snapshot === null || link.contentHash === null) throw new Error(`frozen share link ${link.id} has no snapshot`);
    if (
      FROZEN_GONE_WITH_RESOURCE.has(link.resourceType) &&
      !(await shareResourceExists(db, link.resourceType as ShareResourceType, link.resourceId, link.resourceIds))
    )
      return null;
    return { content: link.snapshot as unknown as ShareContent, contentHash: link.contentHash, snapshotAt: link.createdAt.toISOString() };
  }
  const content = await loadShareContent(db, link.resourceType as ShareResourceType, link.resourceId, link.resourceIds);
  return content && { content, contentHash: contentHash(content), snapshotAt: now.toISOString() };
}

/** Counts a use, in the one statement that re-checks the link may still open; false when it may not. */
async function recordUse(db: Db, id: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const rows = rowsOf(
    z.object({ id: z.string() }),
    await db.$queryRaw`
    UPDATE share_links SET use_count = use_count + 1, last_used_at = ${at}::timestamptz
     WHERE id = ${id}::uuid
       AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > ${at}::timestamptz)
       AND NOT EXISTS (SELECT 1 FROM instance_settings WHERE id = ${SETTINGS_ID} AND share_links_disabled)
    RETURNING id`,
  );
  return rows.length === 1;
}

/** Why a link that was fine a moment ago no longer opens. */
async function currentRefusal(db: Db, id: string, now: Date): Promise<Refusal> {
  if (await shareLinksDisabled(db)) return { status: "disabled" };
  const link = await db.shareLink.findUnique({ where: { id }, select: { revokedAt: true, expiresAt: true } });
  return (link && refusalOf(link, now)) ?? INVALID;
}
