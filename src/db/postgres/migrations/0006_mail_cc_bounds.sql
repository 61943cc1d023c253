CREATE TABLE "ticket_mail_cc" (
	"ticket_id" integer NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"added" boolean NOT NULL,
	"reason" text,
	"transaction_id" integer,
	"created_at" text NOT NULL,
	CONSTRAINT "ticket_mail_cc_ticket_id_email_pk" PRIMARY KEY("ticket_id","email")
);
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "mail_cc_per_message" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN "mail_cc_per_ticket" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "outside_sender" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "ticket_mail_cc" ADD CONSTRAINT "ticket_mail_cc_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_mail_cc" ADD CONSTRAINT "ticket_mail_cc_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- SPEC D0: the default staff template says when a message came from an outside sender (only where it is unchanged).
UPDATE "templates" SET "body" = '{% if transaction.outside_sender %}{{ transaction.creator.name | default: transaction.creator.email }} <{{ transaction.creator.email }}>, who is not on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}), wrote to it. It is kept as an internal comment and nobody else was mailed; to let them in, choose "Add as Cc" on the ticket.{% else %}{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):{% endif %}

{{ transaction.body }}

--
{{ ticket.url }}', "updated_at" = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE lower("name") = 'staff correspondence' AND "body" = '{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):

{{ transaction.body }}

--
{{ ticket.url }}';
