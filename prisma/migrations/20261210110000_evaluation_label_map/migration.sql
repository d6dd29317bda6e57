-- AlterTable
ALTER TABLE "evaluations" ADD COLUMN     "label_map" JSONB;

