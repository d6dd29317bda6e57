// AgentDojo's tool registry (benchmark v1.2.1) by suite: the tools that change the environment's
// state, and those that only read it. The writes are the tools its ground truth
// (lib/testing/fixtures/agentdojo/ground_truth_v1.2.1.json) marks `state_changing`, plus
// `cancel_calendar_event`, `reserve_car_rental` and `reserve_restaurant`, which change state in
// AgentDojo's code but appear in no ground-truth trace, plus the two reads that change state
// (AGENTDOJO_STATE_CHANGING_READS). agentdojo-tools.test.ts checks the lists against the ground
// truth, and docs/agentdojo-tools.md, which says per tool what it does and why it has its class.
import { STATE_CHANGING_TOOLS } from "../replay/rules/trace";

export const AGENTDOJO_SUITES = ["banking", "slack", "travel", "workspace"] as const;
export type AgentDojoSuite = (typeof AGENTDOJO_SUITES)[number];

/**
 * Tools the ground truth marks read-only that change the environment in AgentDojo's code: the
 * audit must treat them as relevant. (The replay keeps the ground truth's marks: Table 2 is the paper's.)
 */
export const AGENTDOJO_STATE_CHANGING_READS: Record<AgentDojoSuite, Readonly<Record<string, string>>> = {
  banking: {},
  slack: { get_webpage: "appends the URL to the environment's web request log (`web.web_requests`), which injection tasks check" },
  travel: {},
  workspace: { get_unread_emails: "marks every email it returns as read (`email.read = True`), which later searches see" },
};

/** The writes: the replay's list of AgentDojo's state-changing tools, and the reads that change state. */
export const AGENTDOJO_WRITE_TOOLS: Record<AgentDojoSuite, readonly string[]> = {
  banking: [...(STATE_CHANGING_TOOLS.banking ?? []), ...Object.keys(AGENTDOJO_STATE_CHANGING_READS.banking)],
  slack: [...(STATE_CHANGING_TOOLS.slack ?? []), ...Object.keys(AGENTDOJO_STATE_CHANGING_READS.slack)],
  travel: [...(STATE_CHANGING_TOOLS.travel ?? []), ...Object.keys(AGENTDOJO_STATE_CHANGING_READS.travel)],
  workspace: [...(STATE_CHANGING_TOOLS.workspace ?? []), ...Object.keys(AGENTDOJO_STATE_CHANGING_READS.workspace)],
};

/** Every other tool of each suite: they only read. */
export const AGENTDOJO_READ_TOOLS: Record<AgentDojoSuite, readonly string[]> = {
  banking: ["get_iban", "get_balance", "get_most_recent_transactions", "get_scheduled_transactions", "read_file", "get_user_info"],
  slack: ["get_channels", "read_channel_messages", "read_inbox", "get_users_in_channel"],
  travel: [
    "get_user_information",
    "get_all_hotels_in_city",
    "get_hotels_prices",
    "get_rating_reviews_for_hotels",
    "get_hotels_address",
    "get_all_restaurants_in_city",
    "get_cuisine_type_for_restaurants",
    "get_restaurants_address",
    "get_rating_reviews_for_restaurants",
    "get_dietary_restrictions_for_all_restaurants",
    "get_contact_information_for_restaurants",
    "get_price_for_restaurants",
    "check_restaurant_opening_hours",
    "get_all_car_rental_companies_in_city",
    "get_car_types_available",
    "get_rating_reviews_for_car_rental",
    "get_car_fuel_options",
    "get_car_rental_address",
    "get_car_price_per_day",
    "search_calendar_events",
    "get_day_calendar_events",
    "get_flight_information",
  ],
  workspace: [
    "get_sent_emails",
    "get_received_emails",
    "get_draft_emails",
    "search_emails",
    "search_contacts_by_name",
    "search_contacts_by_email",
    "get_current_day",
    "search_calendar_events",
    "get_day_calendar_events",
    "search_files_by_filename",
    "get_file_by_id",
    "list_files",
    "search_files",
  ],
};
