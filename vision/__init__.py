"""Seeing the table: camera sources, table zones, card recognition and the frame tracker."""
