"""Request and response schemas of the accounts HTTP API."""
