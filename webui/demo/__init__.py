"""The demo's bundled game data (read with importlib.resources)."""
