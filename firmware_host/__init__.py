"""The serial link to the table's optional microcontroller board, and a simulated board.

>>> from firmware_host import make_board
>>> make_board(None) is None
True
"""
from .config import BoardConfigError, check_config, make_board
from .link import BoardLink
from .messages import (
    Beep, BoardFault, ButtonEvent, CardScanned, IdentifyResponse, MessageError, RingPattern, SetLeds,
)
from .protocol import BoardUnavailable, CommandNotAcked, IncompatibleBoard, LinkError

__all__ = [
    "BoardConfigError", "check_config", "make_board", "BoardLink", "Beep", "BoardFault",
    "ButtonEvent", "CardScanned", "IdentifyResponse", "MessageError", "RingPattern", "SetLeds",
    "BoardUnavailable", "CommandNotAcked", "IncompatibleBoard", "LinkError",
]
