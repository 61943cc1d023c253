DROP INDEX "ticket_custom_values_lookup_idx";--> statement-breakpoint
CREATE INDEX "tickets_owner_status_updated_idx" ON "tickets" USING btree ("owner_id","status","updated_at");--> statement-breakpoint
CREATE INDEX "tickets_team_status_updated_idx" ON "tickets" USING btree ("team_id","status","updated_at");--> statement-breakpoint
CREATE INDEX "ticket_custom_values_lookup_idx" ON "ticket_custom_values" USING btree ("field_id","value","ticket_id");