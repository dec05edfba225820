"""Serving a Starlette app: the access rules every page shares and the listening socket.

Loopback servers are open to local pages, but a state-changing request (always a POST)
must carry the session token in a header, which a foreign web page cannot read or set
without a CORS preflight we never grant; the Host header must name the loopback address,
which stops DNS-rebinding pages. Any other address needs the token on every request,
page, image and API alike (query `token=`, header `X-Token`, or the cookie the first
page with a valid token sets); without it: 403.

Cookies ignore ports, so two servers on one host would share (and overwrite) one cookie, and
every other port of the host would receive it. A server that uses a cookie therefore lives under
a path of its own, `/<id>/` (the id is a hash of its token: unguessable without it, the same
across restarts with the same `--page-token`), and its cookie is named for that id and scoped to that
path: the browser sends it to this server only. Request bodies are read here, once, up to
MAX_BODY (413 beyond).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import threading
import webbrowser
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from typing import Callable
from urllib.parse import parse_qs

from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from dicobench.kit.errors import UserError

logger = logging.getLogger(__name__)
TOKEN_HEADER = "x-token"
COOKIE = "dicobench_token"
MAX_BODY = 64 * 1024  # bytes of a request body: a decision or an answer is far smaller
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in LOOPBACK_NAMES


def base_path(token: str) -> str:
    """The path prefix of a server whose requests carry a cookie (see the module docstring)."""
    return "/" + hashlib.sha256(f"dicobench-server:{token}".encode()).hexdigest()[:20] + "/"


class AccessGuard:
    """ASGI middleware enforcing the token, Host and body rules above; `base` is the path the app
    is served under ("/", or `base_path(token)` where the cookie is used)."""

    def __init__(self, app, token: str, token_everywhere: bool, loopback: bool, base: str = "/"):
        self.app, self.token, self.everywhere, self.loopback, self.base = app, token, token_everywhere, loopback, base
        self.cookie = COOKIE if base == "/" else f"{COOKIE}_{base.strip('/')}"

    def _given(self, scope) -> tuple[str, bool]:
        """The token the request carries (header, query or this server's cookie), and whether in the query."""
        headers = dict(scope.get("headers") or [])
        if TOKEN_HEADER.encode() in headers:
            return headers[TOKEN_HEADER.encode()].decode("latin-1"), False
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        if query:
            return query[0], True
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
        except CookieError:
            return "", False
        return (cookie[self.cookie].value if self.cookie in cookie else ""), False

    def _same(self, given: str) -> bool:
        """Constant-time comparison (as bytes: any character may arrive)."""
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.token.encode())

    def _with_cookie(self, send):
        cookie = f"{self.cookie}={self.token}; Path={self.base}; HttpOnly; SameSite=Strict".encode()

        async def wrapped(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        return wrapped

    def _host_ok(self, scope) -> bool:
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        name = host.rsplit(":", 1)[0].strip("[]") if host.count(":") <= 1 or host.startswith("[") else host
        return is_loopback(name)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given, in_query = self._given(scope)
        valid = self._same(given)
        headers = dict(scope.get("headers") or [])
        inside = scope["path"].startswith(self.base)
        if self.loopback and not self._host_ok(scope):
            reason = "forbidden: unexpected Host header"
        elif self.everywhere and not valid:
            reason = "forbidden: missing or wrong access token"
        elif not inside and scope["path"] in ("/", self.base.rstrip("/")) and scope["method"] in ("GET", "HEAD"):
            query = scope.get("query_string", b"").decode("latin-1")  # the page's own address, with its token
            return await RedirectResponse(self.base + (f"?{query}" if query else ""), status_code=303)(
                scope, receive, send)
        elif not inside:
            return await PlainTextResponse("not found", status_code=404)(scope, receive, send)
        elif scope["method"] not in ("GET", "HEAD") and not (
            scope["method"] == "POST" and self._same(headers.get(TOKEN_HEADER.encode(), b"").decode("latin-1"))
        ):
            reason = "forbidden: state-changing requests are POSTs carrying the token header"
        else:
            if scope["method"] == "POST":
                body = await _body(headers, receive)
                if body is None:
                    return await PlainTextResponse(f"request body over {MAX_BODY} bytes", status_code=413)(
                        scope, receive, send)
                receive = _replay(body)
            if valid and in_query:  # the page's own links and images then carry it as a cookie
                send = self._with_cookie(send)
            if self.base != "/":
                path = scope["path"][len(self.base) - 1:]
                scope = {**scope, "path": path, "raw_path": path.encode("latin-1", "replace")}
            return await self.app(scope, receive, send)
        await PlainTextResponse(reason, status_code=403)(scope, receive, send)


async def _body(headers: dict, receive) -> bytes | None:
    """The request body, or None when it is over MAX_BODY (read no further than that)."""
    length = headers.get(b"content-length", b"0")
    if not length.isdigit() or int(length) > MAX_BODY:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_BODY:
            return None
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes):
    """An ASGI `receive` that gives the app the body already read."""
    sent = False

    async def receive():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


class BadBody(ValueError):
    """A POST body that is not a JSON object of finite numbers (the handlers answer 400)."""


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise BadBody(f"number {text} is out of range")
    return value


def _no_constant(name: str):
    raise BadBody(f"{name} is not a number")


async def json_object(request) -> dict:
    """The request's body as a JSON object: strict UTF-8 JSON, finite numbers only (no NaN,
    Infinity or 1e400), an object at the top; anything else raises BadBody."""
    try:
        data = json.loads((await request.body()).decode("utf-8"), parse_float=_finite, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadBody(f"not a JSON object ({exc})") from None
    except RecursionError:
        raise BadBody("not a JSON object (nested too deeply)") from None
    if not isinstance(data, dict):
        raise BadBody("not a JSON object")
    return data


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page assets, read once from the package: nothing else can ever be served as a file."""
    kinds = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
             ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
    folder = resources.files("dicobench.kit.people.webapp") / "static"
    return {f.name: (f.read_bytes(), kinds[f.name[f.name.rfind("."):]]) for f in folder.iterdir()
            if f.name[f.name.rfind("."):] in kinds}


def page(files: dict[str, tuple[bytes, str]], name: str, settings: str) -> Response:
    """An HTML page with its settings (JSON) put in place of the `__SETTINGS__` marker."""
    body, kind = files[name]
    return Response(body.replace(b"__SETTINGS__", settings.replace("</", "<\\/").encode()), media_type=kind,
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


def changed(exc) -> Response:
    """A shard rewritten (409) or removed (410) since the server started (`rowstore.Changed`):
    a JSON error whose one line names the shard relative to the build."""
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers={"Cache-Control": "no-store"})


def asset_endpoint(files: dict[str, tuple[bytes, str]]):
    """Serves the scripts and styles by name (pages only through their own routes)."""

    async def asset(request) -> Response:
        name = request.path_params["name"]
        if name not in files or name.endswith(".html"):
            return PlainTextResponse("not found", status_code=404)
        body, kind = files[name]
        return Response(body, media_type=kind, headers={"X-Content-Type-Options": "nosniff"})

    return asset


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or a one-line UserError (port in use, unknown address)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UserError(f"cannot listen on {host}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} on {host} is in use; choose another with --port") from None
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class Served:
    """A running server (in a background thread, for the Python API and tests)."""

    def __init__(self, server, thread, url: str, on_stop=None):
        self.server, self.thread, self.url, self.on_stop = server, thread, url, on_stop

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        if self.on_stop is not None:
            self.on_stop()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def access(host: str, token: str | None) -> tuple[str, bool]:
    """The session token (the given one, else a fresh one) and whether every request must
    carry it: always off loopback, and on loopback when the user gave one."""
    if not is_loopback(host) and token == "":
        raise UserError("a server on a non-loopback address needs an access token")
    return token or new_token(), token is not None or not is_loopback(host)


def serve(app, *, host: str, port: int, token: str, everywhere: bool, open_browser: bool = False,
          background: bool = False, announce: Callable[[str], None] | None = None, on_stop=None):
    """Listen on host:port and serve `app` (under `base_path(token)` where every request carries
    the token); announce the URL, with the token when one is needed, to `announce` (a command
    prints it; default: the log, at INFO). Blocks until
    interrupted, unless `background` (then returns a `Served`); `on_stop` runs once serving ends."""
    import uvicorn

    base = base_path(token) if everywhere else "/"
    wrapped = AccessGuard(app, token, everywhere, is_loopback(host), base)
    sock = bind(host, port)
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{real_port}{base}" + (f"?token={token}" if everywhere else "")
    config = uvicorn.Config(wrapped, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    (announce or logger.info)(f"serving on {url}")
    if open_browser:
        webbrowser.open(url)
    if background:
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        return Served(server, thread, url, on_stop)
    try:
        server.run(sockets=[sock])
    finally:
        if on_stop is not None:
            on_stop()
    return None
