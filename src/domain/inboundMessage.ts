import type { NotifySettings } from '../scrips/config.js';
import type { NewAttachment } from './transactions.js';

// An inbound message as the domain takes it (SPEC B7), parsed and classified by src/mail/, and
// the options of the intake that applies it (./mailIntake.ts).

export interface InboundMessage {
  /** Message-ID, or `sha256:<hash of the raw bytes>` when the message has none. */
  identity: string;
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  subject: string;
  from: { address: string; name: string };
  /** Every recipient address (To, Cc, Delivered-To, X-Original-To), lower-cased, in that order. */
  recipients: string[];
  /** The people in To and Cc, with their display names (SPEC C2: they become Cc watchers). */
  copied: { address: string; name: string }[];
  /** Delivered-To and X-Original-To: the address that brought the message here is ours, whatever it is. */
  deliveredTo: string[];
  /** The addresses in To, lower-cased (with an explicit queue, the only one is the address it was delivered to). */
  to: string[];
  /** The text body: text/plain preferred; HTML-only mail converted to text. */
  text: string;
  attachments: NewAttachment[];
  raw: Buffer;
  /** From the classifier: `bounce` is logged only; `auto` is applied without autoreply. */
  kind: 'human' | 'auto' | 'bounce';
  kindReason?: string;
  /** SPEC D3: the header a spam filter marked it with (verdict `spam`: kept, nothing applied; a replay applies it). */
  spam?: string;
  /** Why the text could not be read (then the text says so and the raw message is attached). */
  degraded?: string;
}

export interface IntakeOptions {
  source: 'mailgate' | 'imap' | 'replay';
  /** A queue alias, name or id to use when no recipient matches a queue's mail_alias. */
  queue?: string;
  action?: 'correspond' | 'comment';
  /** Messages per sender per hour before further ones are rejected (loop brake). */
  senderLimitPerHour: number;
  /** Replaying an intake entry: only an earlier created/appended outcome counts as seen. */
  replay?: boolean;
  /** Our own addresses (MAIL_FROM and every queue alias): never a watcher. */
  ownAddresses?: string[];
  /** The settings of the app the mail came through, for the notifications of the change. */
  notify: NotifySettings;
}
