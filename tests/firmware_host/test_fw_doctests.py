"""Runs the examples in firmware_host's docstrings (the suite's testpaths do not include them)."""
import doctest
import importlib

import pytest

MODULES = ["firmware_host", "firmware_host.framing", "firmware_host.messages",
           "firmware_host.protocol", "firmware_host.simboard", "firmware_host.config"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
