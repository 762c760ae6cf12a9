"""The table's voice: announcements spoken by espeak-ng, written to WAV files, or kept as text."""
from __future__ import annotations

import collections
import logging
import shutil
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path
from typing import Optional, Protocol, runtime_checkable

log = logging.getLogger(__name__)


@runtime_checkable
class Speaker(Protocol):
    """What the controller needs from a voice. No method blocks the caller."""

    def say(self, text: str, priority: bool = False) -> None:
        """Queue ``text``; ``priority`` interrupts what is playing and goes first."""

    def interrupt(self) -> None:
        """Stop what is playing now and drop what is queued."""

    def mute(self, on: bool = True) -> None:
        """While muted nothing is spoken, and ``say`` drops its text."""

    def set_volume(self, volume: int) -> None:
        """Loudness 0..100."""

    def close(self) -> None:
        """Stop the worker; later ``say`` calls are ignored."""


class QueuedSpeaker:
    """A worker thread speaking a queue of texts one after another; backends only
    implement :meth:`_speak`, which must return early when ``cancel`` is set.

    :attr:`history` keeps the last announcements as dicts with ``text``, ``status``
    (``"done"``, ``"interrupted"``, ``"text-only"``) and, for WAV output, ``path``.
    """

    def __init__(self, volume: int = 80, muted: bool = False, history: int = 500):
        self.volume = _check_volume(volume)
        self.muted = muted
        self.fault: Optional[str] = None
        self.history: collections.deque = collections.deque(maxlen=history)
        self._queue: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._cancel = threading.Event()
        self._busy = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
        self._thread.start()

    # The caller's side: all quick, under the lock.

    def say(self, text: str, priority: bool = False) -> None:
        text = " ".join(str(text).split())
        if not text:
            return
        with self._cond:
            if self._closed or self.muted:
                return
            if priority:
                self._queue.appendleft(text)
                self._cancel.set()  # the worker stops the current one and takes this next
            else:
                self._queue.append(text)
            self._cond.notify_all()

    def interrupt(self) -> None:
        with self._cond:
            self._queue.clear()
            if self._busy:
                self._cancel.set()
            self._cond.notify_all()

    def mute(self, on: bool = True) -> None:
        with self._cond:
            self.muted = bool(on)
        if on:
            self.interrupt()

    def set_volume(self, volume: int) -> None:
        self.volume = _check_volume(volume)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing is queued or playing (for tests and shutdown); True if idle."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cancel.set()
            self._cond.notify_all()
        self._thread.join(timeout=5)

    # The worker's side.

    def _run(self):
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closed)
                if self._closed:
                    self._busy = False
                    self._cond.notify_all()
                    return
                text = self._queue.popleft()
                self._busy = True
                self._cancel.clear()
            entry = {"text": text, "status": "done"}
            try:
                if self._speak(text, self._cancel, entry) is False:
                    entry["status"] = "interrupted"
            except Exception as exc:  # a broken backend must not kill the voice thread
                self._set_fault(f"speech failed: {type(exc).__name__}: {exc}")
                entry["status"] = "failed"
            with self._cond:
                self.history.append(entry)
                self._busy = False
                self._cond.notify_all()

    def _speak(self, text: str, cancel: threading.Event, entry: dict) -> Optional[bool]:
        """Say one text; return False if ``cancel`` stopped it."""
        raise NotImplementedError

    def _set_fault(self, text: str):
        if text != self.fault:
            log.warning("%s", text)
        self.fault = text

    @property
    def spoken(self) -> list:
        """The texts said so far, in order (interrupted ones included)."""
        return [e["text"] for e in list(self.history)]


def _check_volume(volume) -> int:
    if isinstance(volume, bool) or not isinstance(volume, (int, float)) or not 0 <= volume <= 100:
        raise ValueError(f"volume={volume!r}: use a number from 0 (silent) to 100 (loudest)")
    return int(volume)


class TextSpeaker(QueuedSpeaker):
    """Keeps announcements as text (and prints them to ``stream`` if given): for the
    terminal, the tests, and as the fallback when no synthesiser is installed."""

    def __init__(self, stream=None, **kwargs):
        self.stream = stream
        super().__init__(**kwargs)

    def _speak(self, text, cancel, entry):
        if self.stream is not None:
            print(f"[speaker] {text}", file=self.stream, flush=True)
        entry["status"] = "text-only" if self.fault else "done"
        return None


def _espeak_args(binary, voice, speed, volume):
    # espeak-ng's amplitude runs 0..200 with 100 as its normal loudness; our 100 = 200.
    return [binary, "-v", voice, "-s", str(speed), "-a", str(volume * 2)]


class EspeakSpeaker(TextSpeaker):
    """Speaks through espeak-ng piped into a player (``aplay -q`` by default).

    If espeak-ng or the player is missing, :attr:`fault` says what to install and the
    speaker carries on as text only (printed to ``stream``), so the game goes on.
    """

    def __init__(self, voice: str = "en-us", speed: int = 165, player=("aplay", "-q"),
                 espeak: str = "espeak-ng", stream=sys.stderr, **kwargs):
        self.voice, self.speed = voice, int(speed)
        self.player = list(player)
        self.espeak = shutil.which(espeak)
        super().__init__(stream=stream, **kwargs)
        if self.espeak is None:
            self._set_fault(f"{espeak} not found: install the espeak-ng package "
                            "(apt install espeak-ng); announcements are text only")
        elif shutil.which(self.player[0]) is None:
            self._set_fault(f"{self.player[0]} not found: install alsa-utils or set speaker.player; "
                            "announcements are text only")

    def _speak(self, text, cancel, entry):
        if self.fault:
            return super()._speak(text, cancel, entry)
        synth = subprocess.Popen(_espeak_args(self.espeak, self.voice, self.speed, self.volume)
                                 + ["--stdout"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
        play = subprocess.Popen(self.player, stdin=synth.stdout, stderr=subprocess.PIPE)
        synth.stdout.close()  # the player owns the pipe now; espeak-ng sees EPIPE if it dies
        try:
            # Text goes in on stdin so that a text starting with "-" is never an option.
            synth.stdin.write(text.encode("utf-8"))
            synth.stdin.close()
        except BrokenPipeError:
            pass
        while play.poll() is None:
            if cancel.wait(0.02):
                for proc in (play, synth):
                    proc.terminate()
                play.wait(timeout=2)
                synth.wait(timeout=2)
                return False
        synth.wait(timeout=5)
        if play.returncode != 0:
            err = play.stderr.read().decode(errors="replace").strip()
            self._set_fault(f"player {self.player[0]} failed ({play.returncode}): {err[:200]}")
        return None


class WavSpeaker(QueuedSpeaker):
    """Writes each announcement to a numbered WAV file (``0001.wav`` …) in ``folder``,
    with espeak-ng ``-w``; for the virtual table and the tests.

    With ``realtime=True`` it also waits as long as the speech lasts, as a loudspeaker
    would, so queueing, priority and interrupts behave as at a real table; an
    interrupted announcement's file is cut where it stopped.
    """

    def __init__(self, folder, voice: str = "en-us", speed: int = 165, realtime: bool = False,
                 espeak: str = "espeak-ng", **kwargs):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.voice, self.speed, self.realtime = voice, int(speed), realtime
        self.espeak = shutil.which(espeak)
        self._count = len(list(self.folder.glob("[0-9][0-9][0-9][0-9].wav")))
        super().__init__(**kwargs)
        if self.espeak is None:
            self._set_fault(f"{espeak} not found: install the espeak-ng package; no WAV files are written")

    def _speak(self, text, cancel, entry):
        if self.espeak is None:
            entry["status"] = "text-only"
            return None
        self._count += 1
        path = self.folder / f"{self._count:04d}.wav"
        tmp = path.with_suffix(".part")
        # Written under another name first, so a file that exists is complete.
        subprocess.run(_espeak_args(self.espeak, self.voice, self.speed, self.volume)
                       + ["-w", str(tmp), "--stdin"], input=text.encode("utf-8"),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
        entry["path"] = str(path)
        if not self.realtime:
            tmp.replace(path)
            return None
        with wave.open(str(tmp), "rb") as w:
            seconds = w.getnframes() / w.getframerate()
        start = time.monotonic()
        if cancel.wait(seconds):
            _truncate_wav(tmp, path, time.monotonic() - start)
            tmp.unlink(missing_ok=True)
            return False
        tmp.replace(path)
        return None


def _truncate_wav(src: Path, dst: Path, seconds: float):
    """Copy the first ``seconds`` of a WAV file (what was heard before an interrupt)."""
    with wave.open(str(src), "rb") as r:
        frames = r.readframes(int(seconds * r.getframerate()))
        params = r.getparams()
    with wave.open(str(dst), "wb") as w:
        w.setparams(params)
        w.writeframes(frames)


BACKENDS = ("espeak", "wav", "text")
_KEYS = ("backend", "voice", "speed", "volume", "muted", "player", "folder", "realtime")


def check_speaker_config(config: dict) -> dict:
    """The speaker configuration with defaults filled in, or ValueError naming the key.

    >>> check_speaker_config({"backend": "wav"})
    Traceback (most recent call last):
    ...
    ValueError: speaker config: backend 'wav' needs "folder" (where the WAV files go)
    """
    if not isinstance(config, dict):
        raise ValueError(f"speaker config must be a mapping, not {config!r}")
    for key in config:
        if key not in _KEYS:
            raise ValueError(f"speaker config: unknown key {key!r} (known keys: {', '.join(_KEYS)})")
    backend = config.get("backend", "espeak")
    if backend not in BACKENDS:
        raise ValueError(f"speaker config: backend={backend!r} is unknown; use one of {', '.join(BACKENDS)}")
    speed = config.get("speed", 165)
    if isinstance(speed, bool) or not isinstance(speed, int) or not 80 <= speed <= 450:
        raise ValueError(f"speaker config: speed={speed!r} should be words per minute, 80..450")
    voice = config.get("voice", "en-us")
    if not isinstance(voice, str) or not voice:
        raise ValueError(f"speaker config: voice={voice!r} should be an espeak-ng voice name like 'en-us'")
    if backend == "wav" and "folder" not in config:
        raise ValueError('speaker config: backend \'wav\' needs "folder" (where the WAV files go)')
    folder = config.get("folder")
    if folder is not None and not isinstance(folder, (str, Path)):
        raise ValueError(f"speaker config: folder={folder!r} should be a path")
    player = config.get("player", ["aplay", "-q"])
    if isinstance(player, str):
        player = player.split()
    if not isinstance(player, (list, tuple)) or not player or not all(isinstance(p, str) for p in player):
        raise ValueError(f"speaker config: player={player!r} should be a command like ['aplay', '-q']")
    return {"backend": backend, "voice": voice, "speed": speed, "volume": _config_volume(config),
            "muted": _config_bool(config, "muted", False), "player": list(player), "folder": folder,
            "realtime": _config_bool(config, "realtime", False)}


def make_speaker(config: dict, stream=None) -> QueuedSpeaker:
    """The speaker a configuration names, e.g. ``{"backend": "espeak", "voice": "en-us",
    "speed": 165, "volume": 80, "player": ["aplay", "-q"]}``, ``{"backend": "wav",
    "folder": "speech"}`` or ``{"backend": "text"}``. Unknown keys are refused
    (see :func:`check_speaker_config`).
    """
    c = check_speaker_config(config)
    common = {"volume": c["volume"], "muted": c["muted"]}
    if c["backend"] == "text":
        return TextSpeaker(stream=stream if stream is not None else sys.stdout, **common)
    if c["backend"] == "wav":
        return WavSpeaker(c["folder"], voice=c["voice"], speed=c["speed"], realtime=c["realtime"],
                          **common)
    return EspeakSpeaker(voice=c["voice"], speed=c["speed"], player=c["player"],
                         stream=stream if stream is not None else sys.stderr, **common)


def _config_volume(config):
    try:
        return _check_volume(config.get("volume", 80))
    except ValueError as exc:
        raise ValueError(f"speaker config: {exc}") from None


def _config_bool(config, key, default):
    value = config.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"speaker config: {key}={value!r} should be true or false")
    return value
