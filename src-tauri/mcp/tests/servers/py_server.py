"""A small MCP server written with the official Python SDK (`mcp` 2.x,
`MCPServer`), for gatehouse-mcp's tests.

    python py_server.py stdio
    python py_server.py http PORT [TOKEN]   # streamable HTTP on 127.0.0.1;
                                            # with TOKEN, requests without
                                            # `Authorization: Bearer TOKEN` get 401
"""

import sys

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("gatehouse-py-test")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def delete_note(name: str) -> str:
    """Deletes a note (it only says so)."""
    return f"deleted {name}"


@server.resource("note://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting note."""
    return "hello from python"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
        return
    port = int(sys.argv[2])
    token = sys.argv[3] if len(sys.argv) > 3 else None
    import uvicorn

    app = server.streamable_http_app()
    if token is not None:
        inner = app

        async def app(scope, receive, send):  # noqa: F811 - wraps the app
            if scope["type"] == "http":
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization") != f"Bearer {token}".encode():
                    await send({"type": "http.response.start", "status": 401,
                                "headers": [(b"www-authenticate", b'Bearer realm="test"'),
                                            (b"content-type", b"text/plain")]})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await inner(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
