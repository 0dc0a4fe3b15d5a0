import { describe, expect, it } from "vitest";

import { cleanDraft, emptyDraft, parseArgs, validate, withTransport, withValues, type ServerForm } from "./form";

function form(patch: Partial<ServerForm["draft"]> = {}, scope: ServerForm["scope"] = "gatehouse"): ServerForm {
  return {
    scope,
    originalName: null,
    draft: {
      ...emptyDraft(),
      name: "fs",
      transport: { type: "stdio", command: "node", args: [], env: [] },
      ...patch,
    },
  };
}

const value = (name: string, v: string, secret = false, stored = false) => ({ name, value: v, secret, stored });

describe("MCP server form validation", () => {
  it("accepts a complete stdio server", () => {
    expect(validate(form(), [])).toEqual({});
  });

  it("names the field of every problem, as the backend does", () => {
    const f = form({
      name: "a__b",
      transport: {
        type: "stdio",
        command: " ",
        args: [],
        env: [value("1X", "v"), value("OK", "v"), value("OK", "w"), value("TOKEN", "", true)],
      },
      trusted: true,
    }, "project");
    expect(validate(f, [])).toEqual({
      name: "may not contain `__` (it separates server and tool in tool names)",
      command: "enter the program to run",
      "env[0].name": "must start with a letter or `_`",
      "env[2].name": "`OK` is listed twice",
      "env[3].value": "enter the secret value (it is stored in the OS keychain)",
      trusted: "only servers in Gatehouse's own list can be trusted (a project cannot trust its own servers)",
    });
  });

  it("lets a stored secret keep its value and refuses names taken in the same file", () => {
    const f = form({
      transport: { type: "stdio", command: "node", args: [], env: [value("TOKEN", "", true, true)] },
    });
    expect(validate(f, [])).toEqual({});
    // Unticking "secret" on a stored value needs the value typed in clear.
    const unticked = withValues(f.draft, [value("TOKEN", "", false, true)]);
    expect(validate({ ...f, draft: unticked }, [])).toEqual({
      "env[0].value": "type the value to keep in the file, or keep it secret",
    });
    expect(validate(f, ["fs"])["name"]).toContain("already a server named `fs`");
    // Editing the server itself is not a clash.
    expect(validate({ ...f, originalName: "fs" }, ["fs"])).toEqual({});
  });

  it("checks HTTP URLs and header names, case-insensitively for duplicates", () => {
    let f = form();
    f = { ...f, draft: withTransport(f.draft, "http") };
    expect(validate(f, [])).toEqual({ url: "enter the server's URL" });
    f = {
      ...f,
      draft: withValues(
        { ...f.draft, transport: { type: "http", url: "ftp://x", headers: [] } },
        [value("Authorization", "a"), value("authorization", "b"), value("X Bad", "c"), value("X-Ok", "a\nb")],
      ),
    };
    expect(validate(f, [])).toEqual({
      url: "must start with http:// or https://",
      "headers[1].name": "`authorization` is listed twice",
      "headers[2].name": "` ` is not allowed in a header name",
      "headers[3].value": "a header value cannot contain line breaks",
    });
    f = { ...f, draft: { ...f.draft, transport: { type: "http", url: "${BASE:-http://h}/mcp", headers: [] } } };
    expect(validate(f, [])).toEqual({});
  });

  it("reads arguments one per line and saves them without empty lines", () => {
    const args = parseArgs("a b\n\n--flag\n");
    expect(args).toEqual(["a b", "", "--flag", ""]);
    const draft = cleanDraft({ ...emptyDraft(), transport: { type: "stdio", command: "x", args, env: [] } });
    expect(draft.transport).toEqual({ type: "stdio", command: "x", args: ["a b", "--flag"], env: [] });
  });
});
