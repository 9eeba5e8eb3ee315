"""The functional core: pure data and pure functions, no I/O, no imports from the rest of
toolrail. The public names are re-exported from `toolrail`."""
