-- Hand-written: share links may point at an evaluation (issue 10), named by its id like an experiment or a run.
ALTER TABLE "share_links" DROP CONSTRAINT "share_links_resource_type_check";
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_resource_type_check" CHECK ("resource_type" IN ('experiment', 'run', 'protocol_matrix', 'evaluation'));
