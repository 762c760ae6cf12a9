"""The table service: configuration, the event log, wiring, the command line, statistics."""
