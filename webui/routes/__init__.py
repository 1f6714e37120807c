"""The companion's pages, one blueprint per page group."""
