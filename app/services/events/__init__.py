"""Tournaments: an event's settings and players, its rounds and tables (each a session with
a scorekeeping link), its live standings and its prize list. The public front of the
package; the pages, the API and the command line use these names only."""
from ..errors import EventConflictError, EventError, EventSettingsError
from .export import export_event, standings_csv
from .rounds import (
    MAX_SEED,
    UNPAID,
    close_round,
    draw_next_round,
    get_round,
    get_table,
    keeper_author,
    keeper_table,
    linked_table,
    open_round,
    owes_fee,
    replace_keeper_link,
    round_over,
    table_done,
    table_of_session,
    table_result,
    unpaid_players,
)
from .setup import (
    MAX_HANDS,
    MAX_ROUNDS,
    RESULT_SETTINGS,
    SCORINGS,
    TABLE_SETTINGS,
    EventNotFoundError,
    active_players,
    board_event,
    change_event,
    check_in,
    create_event,
    delete_event,
    event_rules,
    events_of,
    find_player,
    is_final,
    league_names,
    owned_event,
    payout_of,
    set_paid,
    settings_of,
    tie_breaks_of,
    withdraw,
)
from .standings import (
    board_state,
    fees_paid,
    prizes_of,
    records,
    standings_of,
    table_revisions,
)

__all__ = [
    "EventConflictError", "EventError", "EventNotFoundError", "EventSettingsError", "MAX_HANDS",
    "MAX_ROUNDS", "MAX_SEED", "RESULT_SETTINGS", "SCORINGS", "TABLE_SETTINGS", "UNPAID",
    "active_players", "board_event", "board_state", "change_event", "check_in", "close_round",
    "create_event", "delete_event", "draw_next_round", "event_rules", "events_of", "export_event",
    "fees_paid", "find_player", "get_round", "get_table", "is_final", "keeper_author",
    "keeper_table", "league_names", "linked_table", "open_round", "owes_fee", "owned_event",
    "payout_of", "prizes_of", "records", "replace_keeper_link", "round_over", "set_paid",
    "settings_of", "standings_csv", "standings_of", "table_done", "table_of_session",
    "table_result", "table_revisions", "tie_breaks_of", "unpaid_players", "withdraw"
]
