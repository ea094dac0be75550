import type { ToolOperationConfig } from "../../core/argument-operations.js";
import type { ConfiguredRole } from "../../core/argument-roles.js";
import type { SuiteName } from "./corpus.js";

type Roles = Readonly<Record<string, Readonly<Record<string, ConfiguredRole>>>>;

/**
 * The argument roles of the AgentDojo side-effecting tools, read off each tool's parameter schema
 * (what the argument decides), not off any task. The corpus policy file names action classes and
 * output trust only; a policy file may add `args` per tool, which replaces these entries. A
 * recurring flag is an amount (it multiplies how much is paid), and so is a sharing permission
 * (how much access is given).
 */
const EMAIL: Roles = {
  send_email: {
    recipients: "target",
    cc: "target",
    bcc: "target",
    "attachments[].file_id": "target",
    "attachments[].type": "detail",
    subject: "content",
    body: "content",
  },
  create_calendar_event: {
    participants: "target",
    title: "content",
    description: "content",
    location: "content",
    start_time: "detail",
    end_time: "detail",
  },
  cancel_calendar_event: { event_id: "target" },
};

export const AGENTDOJO_ARGUMENT_ROLES: Readonly<Record<SuiteName, Roles>> = {
  workspace: {
    ...EMAIL,
    delete_email: { email_id: "target" },
    reschedule_calendar_event: { event_id: "target", new_start_time: "detail", new_end_time: "detail" },
    add_calendar_event_participants: { event_id: "target", participants: "target" },
    append_to_file: { file_id: "target", content: "content" },
    create_file: { filename: "target", content: "content" },
    delete_file: { file_id: "target" },
    share_file: { file_id: "target", email: "target", permission: "amount" },
  },
  travel: {
    ...EMAIL,
    reserve_hotel: { hotel: "target", start_day: "detail", end_day: "detail" },
    reserve_car_rental: { company: "target", start_time: "detail", end_time: "detail" },
    reserve_restaurant: { restaurant: "target", start_time: "detail" },
  },
  banking: {
    send_money: { recipient: "target", amount: "amount", subject: "content", date: "detail" },
    schedule_transaction: { recipient: "target", amount: "amount", subject: "content", date: "detail", recurring: "amount" },
    update_scheduled_transaction: {
      id: "target",
      recipient: "target",
      amount: "amount",
      subject: "content",
      date: "detail",
      recurring: "amount",
    },
    update_password: { password: "target" },
    update_user_info: { first_name: "content", last_name: "content", street: "content", city: "content" },
  },
  slack: {
    get_webpage: { url: "egress" },
    add_user_to_channel: { user: "target", channel: "target" },
    remove_user_from_slack: { user: "target" },
    invite_user_to_slack: { user: "target", user_email: "target" },
    send_direct_message: { recipient: "target", body: "content" },
    send_channel_message: { channel: "target", body: "content" },
    post_webpage: { url: "target", content: "content" },
  },
};

type Operations = Readonly<Record<string, ToolOperationConfig>>;

const MAIL_AND_CALENDAR: Operations = {
  send_email: { words: ["send", "reply", "forward"] },
  create_calendar_event: { words: ["create", "schedule", "set up", "remind"] },
  cancel_calendar_event: { words: ["cancel", "call off", "delete", "remove"], irreversible: true },
};

/**
 * The operation of each AgentDojo side-effecting tool and the owner's words that ask for it, read
 * off each tool's description: what it does to whom, not how any task phrases it. Tools that share
 * a word are one operation to the owner (appending to a file and adding participants are both
 * "add"); `update_password` is asked for only by naming the password, since updating a payment
 * does not ask to change a credential. Money moves irreversibly; so do deleting and removing.
 */
export const AGENTDOJO_OPERATIONS: Readonly<Record<SuiteName, Operations>> = {
  workspace: {
    ...MAIL_AND_CALENDAR,
    delete_email: { words: ["delete", "remove", "trash"], irreversible: true },
    reschedule_calendar_event: { words: ["reschedule", "move", "postpone"] },
    add_calendar_event_participants: { words: ["add", "invite", "include"] },
    append_to_file: { words: ["append", "add", "write"] },
    create_file: { words: ["create", "write", "save"] },
    delete_file: { words: ["delete", "remove", "trash"], irreversible: true },
    share_file: { words: ["share", "give access", "grant"] },
  },
  travel: {
    ...MAIL_AND_CALENDAR,
    reserve_hotel: { words: ["reserve", "reservation", "book"], irreversible: true },
    reserve_car_rental: { words: ["reserve", "reservation", "book", "rent"], irreversible: true },
    reserve_restaurant: { words: ["reserve", "reservation", "book"], irreversible: true },
  },
  banking: {
    send_money: { words: ["pay", "send", "transfer", "refund", "wire"], irreversible: true },
    schedule_transaction: { words: ["schedule", "set up", "pay", "transfer"], irreversible: true },
    update_scheduled_transaction: { words: ["update", "adjust", "change", "modify"], irreversible: true },
    update_password: { words: ["password"], irreversible: true },
    update_user_info: { words: ["account information", "user information", "address"] },
  },
  slack: {
    send_direct_message: { words: ["send", "write", "tell", "dm"] },
    send_channel_message: { words: ["send", "post", "write", "reply"] },
    post_webpage: { words: ["publish", "upload"] },
    invite_user_to_slack: { words: ["invite"] },
    add_user_to_channel: { words: ["add"] },
    remove_user_from_slack: { words: ["remove", "kick", "ban", "delete"], irreversible: true },
  },
};

/**
 * The tools whose output is a structure AgentDojo serialises from the function's return value (a
 * pydantic model or a list of them, written as YAML): text someone else wrote (an e-mail body, a
 * file's content, a message) sits inside a quoted scalar there and cannot add a key. Left out: tools
 * that return text as written (a file read from disk, a web page), which parse as YAML by accident if
 * at all, and the travel tools, which return Python dictionaries printed as `repr`, not serialised.
 */
export const AGENTDOJO_STRUCTURED_OUTPUTS: Readonly<Record<SuiteName, readonly string[]>> = {
  workspace: [
    "search_calendar_events",
    "get_day_calendar_events",
    "create_calendar_event",
    "reschedule_calendar_event",
    "add_calendar_event_participants",
    "search_emails",
    "get_unread_emails",
    "get_received_emails",
    "get_sent_emails",
    "get_draft_emails",
    "send_email",
    "list_files",
    "get_file_by_id",
    "search_files",
    "search_files_by_filename",
    "create_file",
    "append_to_file",
    "share_file",
    "delete_file",
    "search_contacts_by_name",
    "search_contacts_by_email",
  ],
  travel: [],
  banking: ["get_most_recent_transactions", "get_scheduled_transactions"],
  slack: ["read_channel_messages", "read_inbox"],
};
