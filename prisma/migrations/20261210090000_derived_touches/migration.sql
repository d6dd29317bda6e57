-- A touch the effect policy's templates derive from a call's arguments (`fs:{path}`), told apart from one the
-- harness recorded: a new policy version deletes and derives them again. Every touch stored so far was recorded.
ALTER TABLE "evaluation_touches" ADD COLUMN "derived" BOOLEAN NOT NULL DEFAULT false;
