-- AlterTable
ALTER TABLE "review_protocols" ADD COLUMN     "benchmark_version" TEXT,
ADD COLUMN     "created_by_id" TEXT,
ADD COLUMN     "retired_at" TIMESTAMPTZ(3),
ADD COLUMN     "scope" TEXT,
ADD COLUMN     "sources" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "review_protocol_revisions" (
    "id" UUID NOT NULL,
    "protocol_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "author_id" TEXT,
    "reason" TEXT NOT NULL,
    "previous" JSONB,
    "next" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_protocol_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "completion_arguments" (
    "id" UUID NOT NULL,
    "protocol_id" UUID NOT NULL,
    "content" JSONB NOT NULL,
    "version" INTEGER NOT NULL,
    "updated_by_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "completion_arguments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "completion_argument_revisions" (
    "id" UUID NOT NULL,
    "argument_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "author_id" TEXT,
    "reason" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "completion_argument_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_protocol_revisions_protocol_id_version_key" ON "review_protocol_revisions"("protocol_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "completion_arguments_protocol_id_key" ON "completion_arguments"("protocol_id");

-- CreateIndex
CREATE UNIQUE INDEX "completion_argument_revisions_argument_id_version_key" ON "completion_argument_revisions"("argument_id", "version");

-- AddForeignKey
ALTER TABLE "review_protocol_revisions" ADD CONSTRAINT "review_protocol_revisions_protocol_id_fkey" FOREIGN KEY ("protocol_id") REFERENCES "review_protocols"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "completion_arguments" ADD CONSTRAINT "completion_arguments_protocol_id_fkey" FOREIGN KEY ("protocol_id") REFERENCES "review_protocols"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "completion_argument_revisions" ADD CONSTRAINT "completion_argument_revisions_argument_id_fkey" FOREIGN KEY ("argument_id") REFERENCES "completion_arguments"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: history is append-only, nothing is deleted (docs/review.md).
CREATE TRIGGER "review_protocol_revisions_append_only" BEFORE UPDATE OR DELETE ON "review_protocol_revisions" FOR EACH ROW EXECUTE FUNCTION review_revisions_append_only();
CREATE TRIGGER "completion_argument_revisions_append_only" BEFORE UPDATE OR DELETE ON "completion_argument_revisions" FOR EACH ROW EXECUTE FUNCTION review_revisions_append_only();
ALTER TABLE "review_protocol_revisions" ADD CONSTRAINT "review_protocol_revisions_kind_check" CHECK ("kind" IN ('create', 'edit', 'retire', 'reinstate'));
ALTER TABLE "review_protocol_revisions" ADD CONSTRAINT "review_protocol_revisions_reason_check" CHECK (length(trim("reason")) > 0);
ALTER TABLE "completion_argument_revisions" ADD CONSTRAINT "completion_argument_revisions_reason_check" CHECK (length(trim("reason")) > 0);
ALTER TABLE "review_protocols" ADD CONSTRAINT "review_protocols_name_check" CHECK (length(trim("name")) > 0);
ALTER TABLE "review_protocols" ADD CONSTRAINT "review_protocols_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE RESTRICT;
-- A completion argument can be shared on its own (resource id: the protocol's).
ALTER TABLE "share_links" DROP CONSTRAINT "share_links_resource_type_check";
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_resource_type_check" CHECK ("resource_type" IN ('experiment', 'run', 'protocol_matrix', 'evaluation', 'completion_argument'));
