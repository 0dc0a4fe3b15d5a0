import { memo, useState } from "react";

import { Markdown } from "../Markdown";
import { field } from "../format";
import { resultText, type ToolCall } from "../model";
import { formatBytes } from "../web";
import { Images } from "./ReadView";
import type { WebHopDecision } from "../../generated/protocol";

const DECISION_LABELS: Record<WebHopDecision, string> = {
  covered: "allowed",
  allowed: "allowed by rule",
  allowed_by_user: "allowed by you",
  denied: "refused",
  blocked: "blocked (local network)",
};

/** WebFetch: every URL visited with its decision, the response, and the page (collapsible). */
export const WebFetchView = memo(function WebFetchView({ call }: { call: ToolCall }) {
  const [open, setOpen] = useState(false);
  const web = call.web;
  const response = web?.response ?? null;
  const page = call.result && !call.result.isError ? resultText(call) : "";
  return (
    <div className="web-fetch">
      {web === null || web.hops.length === 0 ? (
        <div className="muted small mono">{field(call.input, "url")}</div>
      ) : (
        <ol className="web-hops small" data-testid="web-hops">
          {web.hops.map((hop, i) => (
            <li key={i} data-testid="web-hop" data-decision={hop.decision}>
              <span className="mono">{hop.url}</span>
              {hop.status !== null && <span className="pill">{hop.status}</span>}
              <span className={`web-decision decision-${hop.decision}`}>{DECISION_LABELS[hop.decision]}</span>
              {hop.reason !== null && hop.decision !== "covered" && <div className="muted">{hop.reason}</div>}
            </li>
          ))}
        </ol>
      )}
      {response !== null && (
        <div className="muted small" data-testid="web-response">
          <span data-testid="web-status">{response.status}</span>
          {" · "}
          <span data-testid="web-type">{response.contentType ?? "no content type"}</span>
          {" · "}
          <span data-testid="web-size">{formatBytes(response.bytes)}</span>
          {response.truncated && " (cut at the size cap)"}
          {response.fromCache && " · from cache"}
        </div>
      )}
      {page !== "" && (
        <>
          <button type="button" className="link" aria-expanded={open} data-testid="web-page-toggle" onClick={() => setOpen(!open)}>
            {open ? "Hide page" : "Show page"}
          </button>
          {open && (
            <div className="web-page" data-testid="web-page">
              <Markdown text={page} />
            </div>
          )}
        </>
      )}
      {call.result && <Images content={call.result.content} />}
    </div>
  );
});
