"""The web app: server-rendered pages on the same services and selectors as the API."""
