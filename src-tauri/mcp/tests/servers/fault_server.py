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
  stderr_flood {count}   writes `count` bytes to stderr without a newline,
                         then answers
  stderr_binary {count}  writes `count` bytes of invalid UTF-8 (and a few
                         newlines) to stderr, then answers
  list_changed_flood {count}
                     from another thread: `count` tools/list_changed
                     notifications over about a second (adding the tool
                     `flood_extra` before the last one) while requests are
                     still answered; the call's answer comes at the end
  progress_flood {count}  `count` progress notifications for the call, then
                         answers `done`
  stats {}           answers JSON: how many tools/list requests it got
                     (listed with `_meta` "anthropic/alwaysLoad" and
                     "anthropic/searchHint", Claude Code's keys)

With the argument `bad-handshake` it writes garbage instead of an
initialize answer. It writes a line to stderr at start (the stderr tail test).
"""

import json
import sys
import threading
import time

tools = ["echo", "crash", "hang", "malformed", "big", "add_tool", "remove_tool",
         "stderr_flood", "stderr_binary", "list_changed_flood", "progress_flood", "stats"]
stats = {"tools_list": 0}
out_lock = threading.Lock()


def write(text):
    with out_lock:
        sys.stdout.write(text)
        sys.stdout.flush()


def send(obj):
    write(json.dumps(obj) + "\n")


def answer(mid, text):
    send({"jsonrpc": "2.0", "id": mid, "result": {
        "content": [{"type": "text", "text": text}], "isError": False}})


def tool_list():
    listed = [{"name": t, "description": f"fault tool {t}",
               "inputSchema": {"type": "object", "properties": {
                   "text": {"type": "string"}, "count": {"type": "integer"}}}}
              for t in tools]
    for tool in listed:
        if tool["name"] == "stats":
            # Claude Code's keys: never deferred, and words for ToolSearch.
            tool["_meta"] = {"anthropic/alwaysLoad": True,
                             "anthropic/searchHint": "request counters"}
    return listed


def list_changed_flood(mid, count):
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}) + "\n"
    per = max(1, count // 100)
    sent = 0
    start = time.monotonic()
    while sent < count:
        n = min(per, count - sent)
        if sent + n == count and "flood_extra" not in tools:
            # The last batch of notifications follows a real change.
            tools.append("flood_extra")
        write(note * n)
        sent += n
        # About `count` a second.
        delay = start + sent / count - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    answer(mid, f"sent {count}")


def progress_flood(mid, token, count):
    tok = json.dumps(token)
    head = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":' + tok
    for start in range(0, count, 10_000):
        end = min(start + 10_000, count)
        write("".join(f'{head},"progress":{i},"total":{count}}}}}\n' for i in range(start + 1, end + 1)))
    answer(mid, "done")


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
            stats["tools_list"] += 1
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tool_list()}})
        elif method == "tools/call":
            name = msg["params"]["name"]
            args = msg["params"].get("arguments") or {}
            if name == "crash":
                sys.exit(3)
            if name == "hang":
                continue
            count = int(args.get("count") or 0)
            if name == "stderr_flood":
                chunk = b"x" * 65536
                left = count
                while left > 0:
                    sys.stderr.buffer.write(chunk[:min(left, len(chunk))])
                    left -= len(chunk)
                sys.stderr.buffer.flush()
                answer(mid, "flooded")
                continue
            if name == "stderr_binary":
                chunk = (b"\xff\xfe\xc3\x28" * 16383) + b"\n\x80\x81\n"
                left = count
                while left > 0:
                    sys.stderr.buffer.write(chunk[:min(left, len(chunk))])
                    left -= len(chunk)
                sys.stderr.buffer.write(b"binary done\n")
                sys.stderr.buffer.flush()
                answer(mid, "written")
                continue
            if name == "list_changed_flood":
                threading.Thread(target=list_changed_flood, args=(mid, count), daemon=True).start()
                continue
            if name == "progress_flood":
                token = msg["params"]["_meta"]["progressToken"]
                progress_flood(mid, token, count)
                continue
            if name == "stats":
                answer(mid, json.dumps(stats))
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
