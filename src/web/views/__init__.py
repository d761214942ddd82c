"""Page views: thin, each reads through a selector or acts through a service."""
