"""The database layer: the tables, the database as a server uses it, writes done once."""
