"""The night's money: sessions, hands, seats, pots, settle-up, debts."""
