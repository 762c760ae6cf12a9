# euchre-table: set-up, demo, tests and benchmarks. Everything installs from here.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Debian / Raspberry Pi OS packages: speech, the zbar QR decoder, SVG rendering and the
# KDE card art used to compose test frames (GPL art: installed, never committed), a
# font with suit symbols, and systemd-analyze for checking the unit file.
APT_PACKAGES := espeak-ng libzbar0 librsvg2-bin kdegames-card-data-kf5 fonts-dejavu-core systemd
# Fonts the generated card designs (tuning data, vision.generated_decks) draw their indices in.
APT_PACKAGES += fonts-urw-base35 fonts-freefont-ttf
# Fonts whose playing-card glyphs are card designs for the plain-deck benchmark (vision.art).
APT_PACKAGES += fonts-symbola fonts-noto-core
# Club nights: the MQTT broker (tests start their own on loopback), nats-server for the
# broker benchmark, and Debian's Chromium with its driver for the hall page's tests.
APT_PACKAGES += mosquitto mosquitto-clients nats-server chromium chromium-driver
# On a Raspberry Pi (make setup PI=1): the camera library comes from Raspberry Pi OS, and
# the venv sees the system's packages so that picamera2 imports.
ifeq ($(PI),1)
APT_PACKAGES += python3-picamera2 alsa-utils
VENV_FLAGS := --system-site-packages
endif

.PHONY: setup sysdeps demo test bench bench-engine bench-strength bench-vision bench-vision-blender bench-log clean art

setup: sysdeps $(VENV)/.installed

sysdeps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(PYTHON) -c "import ensurepip" 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Missing system packages:$$missing"; \
	    echo "Install them with:  sudo apt-get install -y$$missing"; \
	    echo "then run make again."; exit 1; \
	  fi; \
	fi

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(VENV)/bin/euchre-table simulate

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -q

bench: bench-engine bench-log bench-vision bench-strength

bench-engine: setup
	$(PY) -m bench.engine_speed

bench-log: setup
	$(PY) -m bench.referee_kill --kills 1000
	$(PY) -m bench.serial_soak

# Card designs from the npm registry (pinned versions, checked against their registry
# hashes, cached outside the repository) for the plain-deck benchmark; tests fetch them too.
art: setup
	$(PY) -m vision.art fetch

bench-vision: setup art
	$(PY) -m bench.vision_stickers
	$(PY) -m bench.vision_plain
	$(PY) -m bench.vision_speed
	$(PY) -m bench.vision_window

# Plain-deck reading on frames of a second, physically based renderer (Blender's Cycles)
# that nobody tunes on: installs Debian's blender (as root), renders the frames into the
# cache on the first run (hours, one thread), then calibrates and reads as a user would.
# Not part of `make bench` or `make test`.
bench-vision-blender: setup art
	@command -v blender >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends blender; \
	  else echo "Blender is missing: sudo apt-get install -y blender, then run make again."; exit 1; fi; }
	nice -n 10 $(PY) -m bench.vision_blender

bench-strength: setup
	$(VENV)/bin/euchre-table match --a hard --b medium --pairs 2000 --json

clean:
	rm -rf $(VENV) out .hypothesis
