-- CreateIndex
CREATE INDEX "share_links_resource_type_resource_id_created_at_idx" ON "share_links"("resource_type", "resource_id", "created_at");

