/** Raw bytes that are not a message hxdesk can take (no sender, nothing readable): a 422, kept as `rejected`. */
export class MalformedMail extends Error {}
