/**
 * A store command (`hxdesk backup`, `restore`, `copy-store`) refusing or failing, with a one-line
 * reason the command line prints as it is. Shared by both dialects' halves of those commands.
 */
export class StoreError extends Error {}
