"""The hall of a club night: every table's events folded into the night's standings and shown on the hall's page.

``hall.night`` reads the night's configuration, ``hall.scoring`` scores hands by house
rules, ``hall.movements`` seats each round, ``hall.standings`` folds the tables' records
and the hall's own events into standings, ``hall.director`` turns a director's action into
a hall event, and ``hall.web`` serves the page.

The transport: ``hall.topics`` (MQTT topics and payloads), ``hall.store`` (the hall's
append-only SQLite store), ``hall.hub`` (ingest, acknowledgements, resends, refusals),
``hall.service`` (hub + store + fold + rounds: the page's source), ``hall.broker`` (a
local broker on loopback for tests and the simulation), ``hall.cli`` (`euchre-table hall`).
"""
