"""The services of the app, one package per area with a small public front."""
