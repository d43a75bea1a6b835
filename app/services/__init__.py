"""The services, one package per area, each with a small public front."""
