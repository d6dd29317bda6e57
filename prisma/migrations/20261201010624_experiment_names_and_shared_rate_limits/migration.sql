-- AlterTable
ALTER TABLE "experiments" ADD COLUMN     "name" TEXT,
ADD COLUMN     "notes" TEXT;

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "experiments_created_at_id_idx" ON "experiments"("created_at" DESC, "id" DESC);


-- Hand-written: the same bounds as the API's schema (lib/experiments/schemas.ts).
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_name_length" CHECK (char_length(name) BETWEEN 1 AND 200);
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_notes_length" CHECK (char_length(notes) <= 4000);
