"""A deliberately faulty MCP server over stdio (standard library only), for
gatehouse-mcp's fault tests. Speaks just enough MCP: initialize, tools/list,
tools/call. Tools:

  echo {text}        answers normally
  crash {}           exits in the middle of the call (no answer)
  hang {}            never answers
  malformed {}       writes a line that is not JSON, then answers normally
  big {}             answers with a 20 MB text result
  add_tool {}        adds a tool `extra`, sends tools/list_changed
  remove_tool {text} removes the tool named `text`, sends tools/list_changed

With the argument `bad-handshake` it writes garbage instead of an
initialize answer. It writes a line to stderr at start (the stderr tail test).
"""

import json
import sys
import time

tools = ["echo", "crash", "hang", "malformed", "big", "add_tool", "remove_tool"]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def tool_list():
    return [{"name": t, "description": f"fault tool {t}",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
            for t in tools]


def main():
    sys.stderr.write("fault server starting\n")
    sys.stderr.flush()
    bad = len(sys.argv) > 1 and sys.argv[1] == "bad-handshake"
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        method, mid = msg.get("method"), msg.get("id")
        if mid is None:
            continue  # notifications
        if method == "initialize":
            if bad:
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fault", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tool_list()}})
        elif method == "tools/call":
            name = msg["params"]["name"]
            args = msg["params"].get("arguments") or {}
            if name == "crash":
                sys.exit(3)
            if name == "hang":
                continue
            if name == "malformed":
                sys.stdout.write("{not json at all\n")
                sys.stdout.flush()
            if name == "big":
                text = "x" * (20 * 1024 * 1024)
            elif name == "add_tool":
                if "extra" not in tools:
                    tools.append("extra")
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                text = "added"
            elif name == "remove_tool":
                if args.get("text") in tools:
                    tools.remove(args["text"])
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                text = "removed"
            else:
                text = args.get("text", name)
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": text}], "isError": False}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": mid, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": mid,
                  "error": {"code": -32601, "message": f"unknown method {method}"}})


if __name__ == "__main__":
    main()
