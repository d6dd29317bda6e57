-- CreateTable
CREATE TABLE "review_protocols" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "citation" TEXT NOT NULL,
    "link" TEXT,
    "reference_number" INTEGER,
    "from_paper" BOOLEAN NOT NULL DEFAULT false,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_protocols_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_codes" (
    "id" UUID NOT NULL,
    "protocol_id" UUID NOT NULL,
    "field" TEXT NOT NULL,
    "reviewer_id" TEXT,
    "from_paper" BOOLEAN NOT NULL DEFAULT false,
    "code" TEXT NOT NULL,
    "source_location" TEXT NOT NULL,
    "basis" TEXT,
    "citations" TEXT[],
    "sources_read_on" DATE NOT NULL,
    "version" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_code_revisions" (
    "id" UUID NOT NULL,
    "code_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "author_id" TEXT,
    "reason" TEXT NOT NULL,
    "previous" JSONB,
    "next" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_code_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_consensus" (
    "id" UUID NOT NULL,
    "protocol_id" UUID NOT NULL,
    "field" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "rationale" TEXT NOT NULL,
    "from_paper" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL,
    "updated_by_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_consensus_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_consensus_revisions" (
    "id" UUID NOT NULL,
    "consensus_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "author_id" TEXT,
    "reason" TEXT NOT NULL,
    "previous" JSONB,
    "next" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_consensus_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_protocols_name_key" ON "review_protocols"("name");

-- CreateIndex
CREATE UNIQUE INDEX "review_codes_protocol_id_field_reviewer_id_key" ON "review_codes"("protocol_id", "field", "reviewer_id");

-- CreateIndex
CREATE UNIQUE INDEX "review_code_revisions_code_id_version_key" ON "review_code_revisions"("code_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "review_consensus_protocol_id_field_key" ON "review_consensus"("protocol_id", "field");

-- CreateIndex
CREATE UNIQUE INDEX "review_consensus_revisions_consensus_id_version_key" ON "review_consensus_revisions"("consensus_id", "version");

-- AddForeignKey
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_protocol_id_fkey" FOREIGN KEY ("protocol_id") REFERENCES "review_protocols"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_code_revisions" ADD CONSTRAINT "review_code_revisions_code_id_fkey" FOREIGN KEY ("code_id") REFERENCES "review_codes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_consensus" ADD CONSTRAINT "review_consensus_protocol_id_fkey" FOREIGN KEY ("protocol_id") REFERENCES "review_protocols"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_consensus_revisions" ADD CONSTRAINT "review_consensus_revisions_consensus_id_fkey" FOREIGN KEY ("consensus_id") REFERENCES "review_consensus"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written. (Prisma's adapter splits migrations at every semicolon character, so the function
-- body below writes it as the E-string escape \073.)
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_field_check" CHECK ("field" IN ('open_work', 'reset_or_retention', 'separate_evidence'));
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_code_check" CHECK ("code" IN ('E', 'P', 'NR', 'NA'));
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_basis_check" CHECK ("code" IN ('NR', 'NA') OR length(trim("basis")) > 0);
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_source_location_check" CHECK (length(trim("source_location")) > 0);
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_reviewer_check" CHECK (("reviewer_id" IS NULL) = "from_paper");
ALTER TABLE "review_codes" ADD CONSTRAINT "review_codes_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE RESTRICT;
-- The paper's own code of a cell is unique too (NULL reviewers are distinct to the unique key above).
CREATE UNIQUE INDEX "review_codes_paper_key" ON "review_codes" ("protocol_id", "field") WHERE "reviewer_id" IS NULL;
ALTER TABLE "review_code_revisions" ADD CONSTRAINT "review_code_revisions_kind_check" CHECK ("kind" IN ('create', 'edit', 'restore'));
ALTER TABLE "review_code_revisions" ADD CONSTRAINT "review_code_revisions_reason_check" CHECK (length(trim("reason")) > 0);
ALTER TABLE "review_consensus" ADD CONSTRAINT "review_consensus_field_check" CHECK ("field" IN ('open_work', 'reset_or_retention', 'separate_evidence'));
ALTER TABLE "review_consensus" ADD CONSTRAINT "review_consensus_code_check" CHECK ("code" IN ('E', 'P', 'NR', 'NA'));
ALTER TABLE "review_consensus" ADD CONSTRAINT "review_consensus_rationale_check" CHECK (length(trim("rationale")) > 0);
ALTER TABLE "review_consensus_revisions" ADD CONSTRAINT "review_consensus_revisions_reason_check" CHECK (length(trim("reason")) > 0);

-- Revisions are append-only: no UPDATE, no DELETE, by anyone.
CREATE FUNCTION review_revisions_append_only() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''% is append-only: a revision is never changed or deleted'', TG_TABLE_NAME\073 END';
CREATE TRIGGER "review_code_revisions_append_only" BEFORE UPDATE OR DELETE ON "review_code_revisions" FOR EACH ROW EXECUTE FUNCTION review_revisions_append_only();
CREATE TRIGGER "review_consensus_revisions_append_only" BEFORE UPDATE OR DELETE ON "review_consensus_revisions" FOR EACH ROW EXECUTE FUNCTION review_revisions_append_only();
