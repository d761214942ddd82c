"""The organisation's team and settings pages, and the pictures organisers upload."""
