"""A TCP proxy on loopback that cuts or silences a table's link to the broker, for the chaos test and benchmark.

One listening port per link, all served by one thread (``selectors``). ``cut(link)``
closes the link's connections at once (a clean drop: the client sees it and
reconnects). ``blackhole(link, seconds)`` lets bytes vanish in both directions without
closing anything (a silent drop, like Wi-Fi gone or a NAT that forgot the flow: only
MQTT keepalive notices); when it ends, the connections that lived through it are closed,
since their streams are broken.
"""
from __future__ import annotations

import queue
import selectors
import socket
import threading
import time


class LinkFaults(threading.Thread):
    """Proxies ``links`` local ports to ``target_port`` on 127.0.0.1."""

    def __init__(self, links, target_port: int):
        super().__init__(name="link-faults", daemon=True)
        self.target_port = target_port
        self.sel = selectors.DefaultSelector()
        self.ports: dict = {}
        self._conns: dict = {}          # socket -> (peer socket, link)
        self._silent: dict = {}         # link -> monotonic time the silence ends
        self._orders: "queue.Queue" = queue.Queue()
        self._halt = threading.Event()
        self.counts = {"cuts": 0, "blackholes": 0, "accepted": 0, "refused": 0}
        for link in links:
            srv = socket.socket()
            srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            srv.bind(("127.0.0.1", 0))
            srv.listen(16)
            srv.setblocking(False)
            self.ports[link] = srv.getsockname()[1]
            self.sel.register(srv, selectors.EVENT_READ, ("listen", link))

    def cut(self, link) -> None:
        self._orders.put(("cut", link, 0.0))

    def blackhole(self, link, seconds: float) -> None:
        self._orders.put(("silence", link, seconds))

    def stop(self) -> None:
        self._halt.set()
        self.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()
        self.sel.close()

    # ------------------------------------------------------------------ the thread
    def run(self) -> None:
        while not self._halt.is_set():
            self._do_orders()
            for key, _ in self.sel.select(timeout=0.02):
                kind, link = key.data
                if kind == "listen":
                    self._accept(key.fileobj, link)
                else:
                    self._pump(key.fileobj, link)

    def _do_orders(self) -> None:
        now = time.monotonic()
        while True:
            try:
                order, link, seconds = self._orders.get_nowait()
            except queue.Empty:
                break
            if order == "cut":
                self.counts["cuts"] += 1
                self._close_link(link)
            else:
                self.counts["blackholes"] += 1
                self._silent[link] = max(self._silent.get(link, 0.0), now + seconds)
        for link, until in list(self._silent.items()):
            if now >= until:
                del self._silent[link]
                self._close_link(link)

    def _close_link(self, link) -> None:
        for sock, (_peer, l) in list(self._conns.items()):
            if l == link:
                self._close(sock)

    def _close(self, sock) -> None:
        pair = self._conns.pop(sock, None)
        for s in (sock, pair[0] if pair else None):
            if s is None:
                continue
            self._conns.pop(s, None)
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    def _accept(self, srv, link) -> None:
        try:
            client, _ = srv.accept()
        except OSError:
            return
        try:
            up = socket.create_connection(("127.0.0.1", self.target_port), timeout=0.5)
        except OSError:
            self.counts["refused"] += 1      # the broker is down: the client sees a close
            client.close()
            return
        self.counts["accepted"] += 1
        for s in (client, up):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conns[client] = (up, link)
        self._conns[up] = (client, link)
        self.sel.register(client, selectors.EVENT_READ, ("conn", link))
        self.sel.register(up, selectors.EVENT_READ, ("conn", link))

    def _pump(self, sock, link) -> None:
        pair = self._conns.get(sock)
        if pair is None:
            return
        try:
            data = sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(sock)
            return
        if link in self._silent:
            return          # the bytes vanish
        try:
            pair[0].sendall(data)
        except (BlockingIOError, InterruptedError):
            # Loopback buffers are large; a peer this far behind is as good as gone.
            self._close(sock)
        except OSError:
            self._close(sock)
