"""Shared fixtures of the vision tests: card art availability and seeded random generators."""
import numpy as np
import pytest

from vision.art import art_available


@pytest.fixture
def need_art():
    """Skip only when the KDE card art is truly absent (the Makefile installs it)."""
    if not art_available():
        pytest.skip("KDE card art (kdegames-card-data-kf5) or rsvg-convert is not installed")


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)
