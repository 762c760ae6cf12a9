"""The hall: collects every table's events over MQTT, stores them, computes the night's standings and serves the hall page."""
