"""The serial link to the table's optional microcontroller board, and a simulated board."""
