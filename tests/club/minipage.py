"""A minimal hall page for the transport's own tests of the page plumbing (the source's
snapshot and changes over server-sent events, the DOM hooks of the latency test). The
real hall page is the night's module ``hall.web``."""
from __future__ import annotations

import json

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>hall</title></head>
<body data-version="0" data-connection="connecting"><div id="tables"></div><script>
function render(s) {
  const box = document.getElementById('tables');
  for (const [t, st] of Object.entries(s.tables)) {
    let el = box.querySelector('[data-table="' + t + '"]');
    if (!el) { el = document.createElement('div'); el.dataset.table = t; box.appendChild(el); }
    el.dataset.stored = st.stored; el.textContent = 'Table ' + t + ': ' + st.stored;
  }
  document.body.dataset.version = s.version;
}
const es = new EventSource('/events');
es.onopen = () => { document.body.dataset.connection = 'live'; };
es.onerror = () => { document.body.dataset.connection = 'reconnecting'; };
es.onmessage = (m) => { document.body.dataset.connection = 'live'; render(JSON.parse(m.data)); };
</script></body></html>"""


def make_app(source):
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, StreamingResponse
    from starlette.routing import Route

    async def page(request):
        return HTMLResponse(PAGE)

    async def events(request):
        async def stream():
            yield "retry: 500\n\n"
            yield f"data: {json.dumps(source.snapshot())}\n\n"
            async for snap in source.changes():
                if await request.is_disconnected():
                    break
                yield f"data: {json.dumps(snap)}\n\n"
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    return Starlette(routes=[Route("/", page), Route("/events", events)])
