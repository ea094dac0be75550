import type { ArgumentRole } from "../../core/argument-roles.js";
import type { SuiteName } from "./corpus.js";

type Roles = Readonly<Record<string, Readonly<Record<string, ArgumentRole>>>>;

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
    add_user_to_channel: { user: "target", channel: "target" },
    remove_user_from_slack: { user: "target" },
    invite_user_to_slack: { user: "target", user_email: "target" },
    send_direct_message: { recipient: "target", body: "content" },
    send_channel_message: { channel: "target", body: "content" },
    post_webpage: { url: "target", content: "content" },
  },
};
