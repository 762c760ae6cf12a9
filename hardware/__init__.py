"""The table's devices: OLED status screen, bid buttons and LEDs, speaker; real and fake."""
