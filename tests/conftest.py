"""Fixtures shared by the test packages."""
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def factory():
    """A fresh gpiozero mock pin factory for each test (else GPIOPinInUse on the next one)."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous
