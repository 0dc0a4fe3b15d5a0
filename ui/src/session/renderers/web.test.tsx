import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { PermissionAnswer } from "../../generated/protocol";
import { Script, must } from "../fixtures/build";
import { foldEvents, pendingRequests, type ToolCall } from "../model";
import { PermissionModal } from "../PermissionModal";
import { ToolCallView } from "../ToolCallView";
import { UnavailableTools } from "../UnavailableTools";
import { formatBytes } from "../web";
import { WebFetchView } from "./WebFetchView";
import { WebSearchView } from "./WebSearchView";

afterEach(cleanup);

function callFrom(s: Script, id: string): ToolCall {
  return must(foldEvents(s.events).calls.get(id), id);
}

function fetchScript(): Script {
  const s = new Script().request(1).queue("f", "WebFetch", { url: "http://a.test/start", prompt: "p" }, 10, true).start("f").allow("f");
  s.progress("f", { kind: "web_hop", hop: { url: "http://a.test/start", host: "a.test", decision: "covered", reason: null, status: 302 } });
  s.progress("f", {
    kind: "web_hop",
    hop: { url: "https://b.test/page", host: "b.test", decision: "allowed_by_user", reason: "the user answered: allow once", status: 200 },
  });
  s.progress("f", {
    kind: "web_response",
    final_url: "https://b.test/page",
    status: 200,
    content_type: "text/html",
    bytes: 14540,
    truncated: false,
    from_cache: false,
  });
  return s;
}

describe("WebFetchView", () => {
  it("lists every hop with its decision, the response, and the page folded away", () => {
    const s = fetchScript().complete("f", "Source: https://b.test/page\n\n# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    render(<WebFetchView call={callFrom(s, "f")} />);
    const hops = screen.getAllByTestId("web-hop");
    expect(hops.map((h) => h.dataset.decision)).toEqual(["covered", "allowed_by_user"]);
    expect(hops[1]?.textContent).toContain("https://b.test/page");
    expect(hops[1]?.textContent).toContain("allowed by you");
    expect(screen.getByTestId("web-status").textContent).toBe("200");
    expect(screen.getByTestId("web-type").textContent).toBe("text/html");
    expect(screen.getByTestId("web-size").textContent).toBe("14.2 KB");
    expect(screen.queryByTestId("web-page")).toBeNull();
    fireEvent.click(screen.getByTestId("web-page-toggle"));
    const page = screen.getByTestId("web-page");
    expect(page.querySelector("h1")?.textContent).toBe("Title");
    expect(page.querySelector("table")).toBeTruthy();
  });

  it("shows a hop refused at a redirect with its reason, and no page", () => {
    const s = new Script().request(1).queue("f", "WebFetch", { url: "http://a.test/", prompt: "p" }).start("f").allow("f");
    s.progress("f", { kind: "web_hop", hop: { url: "http://a.test/", host: "a.test", decision: "covered", reason: null, status: 302 } });
    s.progress("f", { kind: "web_hop", hop: { url: "http://evil.test/", host: "evil.test", decision: "denied", reason: "deny rule WebFetch(domain:evil.test)", status: null } });
    s.complete("f", "Error: WebFetch of http://evil.test/ refused", "error");
    render(<WebFetchView call={callFrom(s, "f")} />);
    const denied = screen.getAllByTestId("web-hop")[1];
    expect(denied?.dataset.decision).toBe("denied");
    expect(denied?.textContent).toContain("deny rule WebFetch(domain:evil.test)");
    expect(screen.queryByTestId("web-page-toggle")).toBeNull();
    expect(screen.queryByTestId("web-response")).toBeNull();
  });

  it("is the renderer ToolCallView picks for WebFetch and WebSearch", () => {
    const s = fetchScript().complete("f", "page");
    s.queue("q", "WebSearch", { query: "rust" }).start("q").allow("q");
    render(
      <>
        <ToolCallView call={callFrom(s, "f")} project={null} />
        <ToolCallView call={callFrom(s, "q")} project={null} />
      </>,
    );
    expect(screen.getByTestId("web-hops")).toBeTruthy();
    expect(document.querySelector(".web-search")).toBeTruthy();
  });

  it("formats sizes", () => {
    expect(formatBytes(812)).toBe("812 B");
    expect(formatBytes(10 * 1024 * 1024)).toBe("10.0 MB");
  });
});

describe("WebSearchView", () => {
  it("renders results as links, never script URLs", () => {
    const s = new Script().request(1).queue("q", "WebSearch", { query: "tokio" }).start("q").allow("q");
    s.progress("q", {
      kind: "web_search_results",
      provider: "SearXNG",
      filtered_out: 2,
      results: [
        { title: "Tokio", url: "https://tokio.rs/", snippet: "A runtime." },
        { title: "Bad", url: "javascript:alert(1)", snippet: "" },
      ],
    });
    render(<WebSearchView call={callFrom(s, "q")} />);
    expect(screen.getByTestId("web-search-count").textContent).toBe("2 results");
    const items = within(screen.getByTestId("web-search-results")).getAllByTestId("web-search-result");
    expect(items[0]?.querySelector("a")?.getAttribute("href")).toBe("https://tokio.rs/");
    expect(items[1]?.querySelector("a")?.getAttribute("href")).toBeNull();
    expect(screen.getByText(/2 filtered out/)).toBeTruthy();
  });
});

describe("WebFetch permission prompt", () => {
  it("names the host and offers always allow domain:<host>", () => {
    const s = new Script().request(1).queue("f", "WebFetch", { url: "https://Docs.Example.com/a", prompt: "p" }).start("f");
    s.add({
      type: "permission_requested",
      tool_use_id: "f",
      tool_name: "WebFetch",
      input: { url: "https://Docs.Example.com/a", prompt: "p" },
      reason: { kind: "default", message: "no rule allows it" },
      trace: [],
      suggestions: ["WebFetch(domain:docs.example.com)"],
      preview: null,
      web_host: "docs.example.com",
    });
    const onAnswer = vi.fn<(id: string, answer: PermissionAnswer) => void>();
    render(<PermissionModal requests={pendingRequests(foldEvents(s.events))} destinations={[{ source: "local", path: "/p/.claude/settings.local.json" }]} onAnswer={onAnswer} />);
    expect(screen.getByTestId("permission-web-host").textContent).toContain("docs.example.com");
    const always = screen.getByTestId("permission-always-allow");
    expect(always.textContent).toContain("Always allow domain:docs.example.com");
    fireEvent.click(always);
    expect(onAnswer).toHaveBeenCalledWith("f", {
      kind: "always_allow",
      rules: ["WebFetch(domain:docs.example.com)"],
      destination: "local",
    });
  });
});

describe("UnavailableTools", () => {
  it("says which tools are left out and why, from tools_unavailable", () => {
    const s = new Script().add({
      type: "tools_unavailable",
      tools: [{ name: "WebSearch", reason: "not_configured", message: "no search provider is configured" }],
    });
    render(<UnavailableTools tools={foldEvents(s.events).unavailableTools} />);
    const item = screen.getByTestId("tool-unavailable");
    expect(item.dataset.tool).toBe("WebSearch");
    expect(item.dataset.reason).toBe("not_configured");
    expect(item.textContent).toContain("no search provider is configured");
  });

  it("renders nothing when every tool is available", () => {
    render(<UnavailableTools tools={[]} />);
    expect(screen.queryByTestId("tools-unavailable")).toBeNull();
  });
});
