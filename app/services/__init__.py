"""The services, one package per area: what pages, API and CLI call."""
