"""Tests of the serial link to the table board (firmware_host)."""
